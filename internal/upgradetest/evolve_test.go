package upgradetest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The newer vocabulary the second host build is generated from: this
// module's specs (spec/jobs.yaml, spec/subagents.yaml) evolved as a schema
// owner would evolve them, with declarations, so that every decoder reads
// the older history as the newer version:
//
//   - job/registered gains a version that renames label title (its Go name
//     kept, so the module's code compiles against either build) and adds
//     attempt, with a default for history;
//   - subagent/message-accepted gains v2, adding priority with a default;
//   - StopReason gains handedOff, an enum value;
//   - FollowFrame gains NoteFrame, a union variant;
//   - job/noted is a new fact type.
//
// The edits are made to the YAML tree, not to a copy of the specs, so the
// test follows the specs as they change: the new version is the one after
// whatever version is newest.

// evolveJobs returns spec/jobs.yaml evolved.
func evolveJobs(t *testing.T, data []byte) []byte {
	t.Helper()
	doc := parseYAML(t, data)
	root := doc.Content[0]
	versions := get(t, get(t, get(t, root, "facts"), "job/registered"), "versions")
	n, latest := newestVersion(t, versions)
	fields := carried(t, get(t, latest, "fields"), n)
	remove(fields, "label")
	set(fields, "title", node(t, `{type: string, go: Label, from: label, doc: Title is the job's label; the version renamed it.}`))
	set(fields, "attempt", node(t, `{type: int32, default: 1, doc: "Attempt counts the runs of the job, from 1; history written before it is attempt 1."}`))
	set(versions, "v"+strconv.Itoa(n+1), mapping(map[string]*yaml.Node{
		"doc":    scalar(fmt.Sprintf("Version %d calls the label a title and counts attempts.", n+1)),
		"fields": fields,
	}, "doc", "fields"))
	variants := get(t, get(t, get(t, root, "unions"), "FollowFrame"), "variants")
	set(variants, "NoteFrame", node(t, `{tag: note, doc: A NoteFrame carries a note about the job., fields: {text: {type: string, doc: Text is the note.}}}`))
	set(get(t, root, "facts"), "job/noted", node(t, `{doc: A job/noted fact records a note a runtime made about a job., versions: {v1: {fields: {jobId: {type: JobID, doc: JobID names the job.}, at: {type: int64, doc: At is when.}, note: {type: string, doc: Note is the note.}}}}}`))
	return render(t, doc)
}

// evolveSubagents returns spec/subagents.yaml evolved.
func evolveSubagents(t *testing.T, data []byte) []byte {
	t.Helper()
	doc := parseYAML(t, data)
	root := doc.Content[0]
	set(get(t, get(t, get(t, root, "enums"), "StopReason"), "values"), "handedOff", node(t, `{doc: The agent handed its work to another.}`))
	versions := get(t, get(t, get(t, root, "facts"), "subagent/message-accepted"), "versions")
	n, latest := newestVersion(t, versions)
	fields := carried(t, get(t, latest, "fields"), n)
	set(fields, "priority", node(t, `{type: int32, default: 5, doc: "Priority orders waiting messages, highest first; history written before it is 5."}`))
	set(versions, "v"+strconv.Itoa(n+1), mapping(map[string]*yaml.Node{"fields": fields}, "fields"))
	return render(t, doc)
}

// newestVersion is the number and node of the newest version in versions.
func newestVersion(t *testing.T, versions *yaml.Node) (int, *yaml.Node) {
	t.Helper()
	last := len(versions.Content) - 2
	n, err := strconv.Atoi(strings.TrimPrefix(versions.Content[last].Value, "v"))
	if err != nil {
		t.Fatalf("version key %q", versions.Content[last].Value)
	}
	return n, versions.Content[last+1]
}

// carried is a copy of version n's fields as the next version carries
// them: each since: what it said, or vN, and without the declarations that
// derived it from the version before n.
func carried(t *testing.T, fields *yaml.Node, n int) *yaml.Node {
	t.Helper()
	out := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(fields.Content); i += 2 {
		f := fields.Content[i+1]
		if f.Kind == yaml.ScalarNode {
			f = mapping(map[string]*yaml.Node{"type": scalar(f.Value)}, "type")
		} else {
			f = copyNode(f)
		}
		for _, k := range []string{"from", "default", "map"} {
			remove(f, k)
		}
		if lookup(f, "since") == nil {
			set(f, "since", scalar("v"+strconv.Itoa(n)))
		}
		out.Content = append(out.Content, copyNode(fields.Content[i]), f)
	}
	return out
}

func parseYAML(t *testing.T, data []byte) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return &doc
}

func render(t *testing.T, doc *yaml.Node) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// node parses one YAML value.
func node(t *testing.T, text string) *yaml.Node {
	t.Helper()
	return parseYAML(t, []byte(text)).Content[0]
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

// mapping is a mapping of values, its keys in the order given.
func mapping(values map[string]*yaml.Node, order ...string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range order {
		m.Content = append(m.Content, scalar(k), values[k])
	}
	return m
}

// lookup is m's value at key, or nil.
func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// get is m's value at key, which the spec must have.
func get(t *testing.T, m *yaml.Node, key string) *yaml.Node {
	t.Helper()
	if v := lookup(m, key); v != nil {
		return v
	}
	t.Fatalf("the spec has no %s where the evolution expects one", key)
	return nil
}

// set puts value at key in m, replacing one there.
func set(m *yaml.Node, key string, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = value
			return
		}
	}
	m.Content = append(m.Content, scalar(key), value)
}

// remove deletes key from m.
func remove(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = nil
	for _, k := range n.Content {
		c.Content = append(c.Content, copyNode(k))
	}
	return &c
}

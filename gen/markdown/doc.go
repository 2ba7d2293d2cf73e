// Package markdown is jobgen's reference backend: from a resolved spec it
// generates one Markdown page, <package>.md, that documents every
// declaration, fact and machine for readers who do not read YAML.
package markdown

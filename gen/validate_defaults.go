package gen

// Validate's checks of defaults (emit_types.go emits them as constants).

import (
	"strings"
)

// defaults checks that each default's name agrees with its unit and that its
// value fits the generated constant.
func (v *validator) defaults() {
	for _, d := range v.spec.Defaults {
		what := "defaults." + d.Name
		if d.Unit == "" {
			continue
		}
		sized := d.Unit == UnitBytes || d.Unit == UnitKiB || d.Unit == UnitMiB
		if strings.HasSuffix(d.Name, "Bytes") && !sized {
			v.add(d.UnitPos, "%s.unit: %s names a size in bytes but its unit is %s; use bytes, KiB or MiB", what, d.Name, d.Unit)
		}
		for _, suffix := range []string{"Ms", "Millis", "Seconds", "Secs"} {
			if strings.HasSuffix(d.Name, suffix) && d.Unit.Duration() {
				v.add(d.Pos, "%s: the unit makes the constant a time.Duration; drop the %s suffix from the name", what, suffix)
			}
		}
		if d.Value > unitLimit(d.Unit) {
			v.add(d.Pos, "%s.value: %d %s does not fit in an int64", what, d.Value, d.Unit)
		}
	}
}

// unitLimit is the largest value of the unit that fits the generated constant.
func unitLimit(u Unit) int64 {
	const maxInt64 = 1<<63 - 1
	switch u {
	case UnitKiB:
		return maxInt64 >> 10
	case UnitMiB:
		return maxInt64 >> 20
	case UnitMs:
		return maxInt64 / 1_000_000
	case UnitSeconds:
		return maxInt64 / 1_000_000_000
	case UnitMinutes:
		return maxInt64 / 60_000_000_000
	}
	return maxInt64
}

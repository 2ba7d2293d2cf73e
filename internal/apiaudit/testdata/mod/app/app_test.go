package app

import (
	"testing"

	"example.com/mod/lib"
)

func TestElsewhere(t *testing.T) { lib.TestedElsewhere() }

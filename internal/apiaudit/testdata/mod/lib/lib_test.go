package lib

import "testing"

func TestHere(t *testing.T) { TestedHere() }

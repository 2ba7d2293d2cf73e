// Package lib exports one identifier of each kind of use.
package lib

// Used is called by another package.
func Used() int { return ownOnly() + OwnOnly() }

// OwnOnly is called by lib alone.
func OwnOnly() int { return 1 }

func ownOnly() int { return 0 }

// TestedElsewhere is called by another package's tests.
func TestedElsewhere() {}

// TestedHere is called by lib's own tests.
func TestedHere() {}

// Unused is called by nothing.
func Unused() {}

// A T has a method another package calls through a value.
type T struct{ Field int }

// Method is called through a value of T.
func (T) Method() {}

// Gen is used by generated code only.
const Gen = 1

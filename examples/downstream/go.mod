module example.com/deployer

go 1.25.0

require (
	github.com/google/uuid v1.6.0
	github.com/jobgen/jobgen v0.0.0
)

// Until jobgen is released, the module is this repository's working tree; a
// module outside it requires a released version instead (README.md,
// "Using jobgen in your own module").
replace github.com/jobgen/jobgen => ../..

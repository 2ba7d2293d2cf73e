// Package python is jobgen's Python backend: from a resolved spec it
// generates one module of a Python package, pydantic v2 models in strict
// mode whose decoders refuse what the Go decoders refuse and whose encoders
// write what Go writes, and the files the package shares: the runtime every
// module imports (pyruntime.py), __init__.py, py.typed and pyproject.toml.
// Check reports what Python cannot hold: keywords, names the module would
// bind twice, field names pydantic reserves. See decisions 0102 and 0103.
package python

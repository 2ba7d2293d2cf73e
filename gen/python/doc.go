// Package python is jobgen's Python backend: from a resolved spec it
// generates one module of a Python package, pydantic v2 models in strict
// mode whose decoders refuse what the Go decoders refuse and whose encoders
// write what Go writes, and, as a gen.Packager, the package's own files: the
// runtime every module imports (pyruntime.py, as runtime.py), __init__.py,
// py.typed and pyproject.toml; a package other than jobgen's imports
// jobgen's runtime instead, and another module's spec from that module's
// package. A spec with routes gets a second module, <name>_client.py, the
// synchronous and asynchronous clients of its routes over the package's
// client runtime (pyclient.py, as client.py, the one module that imports
// httpx). Check reports what Python cannot hold: keywords, names the
// module would bind twice, field names pydantic reserves, names the client
// keeps. See decisions 0102, 0103, 0104, 0144 and 0203.
package python

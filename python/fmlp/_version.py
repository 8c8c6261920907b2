"""fmlp's version: the CMake project's (project(fmlp VERSION ...)), kept
equal by the ctest test python/version. pyproject.toml reads it from here."""
__version__ = "0.3.1"

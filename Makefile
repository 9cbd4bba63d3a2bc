# `make demo` and `make test` are the two commands of the README: each creates .venv when missing and installs
# what it needs into it. Stamps make a second run skip the install.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check

.PHONY: demo test install clean bench mutants

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip

$(VENV)/.stamp-base: pyproject.toml | $(PY)
	$(PIP) -e .
	touch $@

$(VENV)/.stamp-test: pyproject.toml | $(PY)
	$(PIP) -e ".[test,ray,bench]"
	touch $@ $(VENV)/.stamp-base

install: $(VENV)/.stamp-base

# The first run on a machine compiles apportion's Numba kernels (about 40 s on 2 cores); `apportion compile`
# does it as part of getting ready and returns at once when the kernels are already cached.
demo: $(VENV)/.stamp-base
	$(VENV)/bin/apportion compile
	$(VENV)/bin/apportion demo

# The second run is the GPU kernels on numba-cuda's CUDA simulator (docs/gpu.md): the same kernel source on the
# CPU, small inputs; the first run skips them (the simulator must be switched on before numba is imported).
test: $(VENV)/.stamp-test
	$(PY) -m pytest -q -p no:cacheprovider
	NUMBA_ENABLE_CUDASIM=1 $(PY) -m pytest -q -p no:cacheprovider -m gpu

# The mutation check (docs/testing.md): slow, so not part of `make test`.
mutants: $(VENV)/.stamp-test
	$(PY) tools/mutants.py

bench: $(VENV)/.stamp-test
	@echo "benchmarks are run one by one: $(PY) benchmarks/<name>.py (see docs/)"

clean:
	rm -rf $(VENV) demo-output build src/*.egg-info

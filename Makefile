# sprayfabric — everything runs from a venv inside the checkout.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test lint typecheck bench bench-afpacket bench-cache clean ptf demo mininet-demo tna-check

TARGET ?= softswitch
# the Python trees ruff checks and formats
PY_DIRS := softswitch controller ptf_tests tests bench fabricnet p4rt_proto fabricsim sprayfabric mininet

$(STAMP): pyproject.toml packaging/p4rt-proto-pth/sprayfabric-p4rt-proto.pth
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,interop,dask]'
	$(BIN)/pip install -q ./packaging/p4rt-proto-pth
	$(BIN)/pip install -q --no-deps 'p4runtime-shell==0.0.6'
	touch $(STAMP)

venv: $(STAMP)

test: typecheck
	$(BIN)/ruff check $(PY_DIRS)
	$(BIN)/pytest -n 2 tests

typecheck: $(STAMP)
	$(BIN)/mypy

lint: $(STAMP)
	$(BIN)/ruff check $(PY_DIRS)
	$(BIN)/ruff format --check $(PY_DIRS)

bench: $(STAMP)
	$(BIN)/python -m bench.engine_bench
	$(BIN)/python -m bench.fabric_bench
	$(BIN)/python -m bench.p4runtime_bench
	$(BIN)/python -m bench.process_bench
	$(BIN)/python -m bench.routing_bench
	$(BIN)/python -m bench.fabricsim_bench --demo
	$(BIN)/python -m bench.program_bench
	$(BIN)/python -m bench.program_bench --fabric fat-tree:6

# per-packet instructions and simulated cache misses of fabric.p4 (needs valgrind, ~7 min)
bench-cache: $(STAMP)
	$(BIN)/python -m bench.cache_bench

demo: $(STAMP)
	$(BIN)/python -m fabricsim.demo --out demo-out

ptf: $(STAMP)
	$(BIN)/python ptf_tests/run.py --target $(TARGET) $(if $(BMV2_CLI),--bmv2-cli $(BMV2_CLI))

# the TNA pipeline (p4src/tna) on Tofino 1 and 2: TNA_INCLUDE=<dir with tna.p4, t2na.p4>
P4TEST ?= p4test
tna-check: $(STAMP)
	@test -n "$(TNA_INCLUDE)" || { echo "tna-check: set TNA_INCLUDE to the directory holding tna.p4"; exit 2; }
	mkdir -p build/tna
	for t in 1 2; do for d in "" -DWITH_CORE_ONLY -DWITH_INT -DWITH_ECN -DWITH_CONGESTION; do \
	  $(P4TEST) --std p4-16 -I $(TNA_INCLUDE) -D__TARGET_TOFINO__=$$t $$d \
	    --p4runtime-files build/tna/tofino$$t$$d.p4info.txtpb p4src/tna/fabric_tna.p4 || exit 1; \
	done; \
	  if command -v bf-p4c >/dev/null; then \
	    bf-p4c --std p4-16 --target tofino$$([ $$t = 2 ] && echo 2) --arch $$([ $$t = 2 ] && echo t2na || echo tna) \
	      -o build/tna/tofino$$t p4src/tna/fabric_tna.p4 || exit 1; fi; \
	done
	TNA_INCLUDE=$(TNA_INCLUDE) PATH="$$(dirname "$$(command -v $(P4TEST))"):$$PATH" $(BIN)/pytest -q tests/fabric/test_tna.py

# the fabric in Mininet (root; Debian: apt-get install mininet iperf3 iputils-ping ethtool)
mininet-demo: $(STAMP)
	$(BIN)/python mininet/demo.py --target $(TARGET)

bench-afpacket: $(STAMP)
	$(BIN)/python -m bench.afpacket_bench

clean:
	rm -rf $(VENV) build *.egg-info packaging/p4rt-proto-pth/build packaging/p4rt-proto-pth/*.egg-info

# Tests: one Criterion binary of every tests/unit/ROOM/*.c (and tests/unit/skips_report.c), and the tests/integration/ROOM/*.sh scripts.
UNIT_SRC := $(wildcard tests/unit/*.c tests/unit/*/*.c)
UNIT_BIN := $(BUILD)/tests/unit-tests

$(UNIT_BIN): $(UNIT_SRC:%.c=$(BUILD)/%.o) $(LIBCLI) $(LIBMETIS) $(LIBREFFS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(REPORT_LIBS) -lcriterion

unit: $(UNIT_BIN)
	@tests/run-unit.sh $(UNIT_BIN) --jobs 2 $(UNIT_ARGS)

integration: all
	@tests/run-integration.sh $(IT)

bench: deps
	@$(MAKE) --no-print-directory all
	@tests/bench/run.sh

# The file exerciser (tests/fsx/README.md): make fsx runs it on RefFS, tmpfs and ext4; the integration tests use it too.
FSX_BIN := $(BUILD)/tests/fsx/fsx
export METIS_FSX := $(abspath $(FSX_BIN))

$(FSX_BIN): $(BUILD)/tests/fsx/fsx.o
	$(CC) $(LDFLAGS) -o $@ $^

.PHONY: fsx
integration: $(FSX_BIN)
fsx: all $(FSX_BIN)
	@tests/fsx/run.sh $(FSX_OPS) $(FSX_SEED)

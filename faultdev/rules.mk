# The faulty device: bin/metis-faultdev, a FUSE daemon serving one image whose reads and writes fail on command.
$(BIN)/metis-faultdev: $(BUILD)/faultdev/faultdev.o $(BUILD)/faultdev/faultdev_states.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# It prints the version, which is set in the Makefile.
$(BUILD)/faultdev/faultdev.o: Makefile

all: $(BIN)/metis-faultdev

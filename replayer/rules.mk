# Replayer: bin/metis-replay (traces, repro, shrink, emit-c), built once its sources exist.
REPLAY_SRC := $(wildcard replayer/*.c)
ifneq ($(REPLAY_SRC),)
$(BIN)/metis-replay: $(REPLAY_SRC:%.c=$(BUILD)/%.o) $(LIBMETIS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# main.c prints the version, which is set in the Makefile.
$(BUILD)/replayer/main.o: Makefile

all: $(BIN)/metis-replay
endif

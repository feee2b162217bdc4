# Replayer: bin/metis-replay (traces, repro, shrink, emit-c), built once its sources exist.
REPLAY_SRC := $(wildcard replayer/*.c replayer/*/*.c)
ifneq ($(REPLAY_SRC),)
$(BIN)/metis-replay: $(REPLAY_SRC:%.c=$(BUILD)/%.o) $(LIBMETIS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# replay_main.c prints the version, which is set in the Makefile.
$(BUILD)/replayer/replay_main.o: Makefile

all: $(BIN)/metis-replay
endif

# emit-c copies the tree walk, listing and comparison into every program it writes: the tree
# model's vocabulary and ranking of differences (tree/tree.h, tree/diff.h, tree/diff.c), the one
# walk and listing line (lib/text/buf, tree/walk.c, tree/line.c) and the reproducer's use of them
# (tree/reprotree.h/.c). Their text, as C string lines, is generated here so that the copy can never
# drift; declarations come before their first use, and their includes of each other go.
as_c_text = @mkdir -p $(dir $@) && cat $^ | grep -v '^\#include "' | \
  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' > $@
REPRO_TREE_TEXT := fs-state/lib/text/buf.h fs-state/tree/tree.h fs-state/tree/diff.h \
                   fs-state/tree/reprotree.h fs-state/lib/text/buf.c fs-state/tree/walk.c \
                   fs-state/tree/line.c fs-state/tree/diff.c fs-state/tree/reprotree.c
$(BUILD)/replayer/reprotree_text.h: $(REPRO_TREE_TEXT)
	$(as_c_text)
$(BUILD)/replayer/emit/emitc.o: $(BUILD)/replayer/reprotree_text.h
$(BUILD)/replayer/emit/emitc.o: CFLAGS += -I$(BUILD)/replayer

# A history's restore calls run in the reproducer with the code the engine runs them with
# (backend/logical/calls/rcalls.c, and lib/system/beneath.c for its confinement), copied the same way.
REPRO_CALLS_TEXT := fs-state/lib/system/beneath.h fs-state/backend/logical/calls/rcalls.h fs-state/lib/system/beneath.c \
                    fs-state/backend/logical/calls/rcalls.c
$(BUILD)/replayer/rcalls_code.h: $(REPRO_CALLS_TEXT)
	$(as_c_text)
$(BUILD)/replayer/emitstep/emitc_calls.o: $(BUILD)/replayer/rcalls_code.h
$(BUILD)/replayer/emitstep/emitc_calls.o: CFLAGS += -I$(BUILD)/replayer

# emit-c writes the faulty device's source beside a reproducer whose last step is a fault step,
# for run.sh to build where Metis is not installed: faultdev/'s text as C string lines.
FAULTDEV_TEXT := faultdev/faultdev_proto.h faultdev/faultdev_states.h faultdev/faultdev_states.c faultdev/faultdev.c
$(BUILD)/replayer/faultdev_text.h: $(FAULTDEV_TEXT)
	$(as_c_text)
$(BUILD)/replayer/emitstep/emitc_fault.o: $(BUILD)/replayer/faultdev_text.h
$(BUILD)/replayer/emitstep/emitc_fault.o: CFLAGS += -I$(BUILD)/replayer

# A reproducer of crash states from a recorded stream holds them to the engine's own oracle.
CRASH_ORACLE_TEXT := fs-state/engine/crash/crash_listing.h fs-state/engine/crash/crash_oracle.h \
                     fs-state/engine/crash/crash_listing.c fs-state/engine/crash/crash_oracle.c
$(BUILD)/replayer/crash_oracle_text.h: $(CRASH_ORACLE_TEXT)
	$(as_c_text)
$(BUILD)/replayer/emitstep/emitc_stream.o: $(BUILD)/replayer/crash_oracle_text.h
$(BUILD)/replayer/emitstep/emitc_stream.o: CFLAGS += -I$(BUILD)/replayer

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

# emit-c copies the tree listing and comparison into every program it writes: the tree model's
# vocabulary and ranking of differences (tree/tree.h, tree/diff.h, tree/diff.c) and the listing
# (reprotree.h/.c, whose comparison calls diff.c). Their text, as C string lines, is generated
# here so that the copy can never drift; declarations come before their first use.
REPRO_TEXT := fs-state/tree/tree.h fs-state/tree/diff.h fs-state/reprotree.h fs-state/reprotree.c \
              fs-state/tree/diff.c
$(BUILD)/replayer/reprotree_text.h: $(REPRO_TEXT)
	@mkdir -p $(dir $@)
	cat $^ | grep -v '^#include "\(tree/\)\?\(reprotree\|tree\|diff\)\.h"' | \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' > $@
$(BUILD)/replayer/emitc.o: $(BUILD)/replayer/reprotree_text.h
$(BUILD)/replayer/emitc.o: CFLAGS += -I$(BUILD)/replayer

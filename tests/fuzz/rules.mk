# Fuzz harnesses of the parsers (tests/fuzz/README.md): make fuzz runs them under libFuzzer (clang,
# installed by scripts/deps.sh --fuzz); make check replays their corpora through a gcc build.
FUZZ_HARNESSES := config trace runlog classes detail json hosts known pickle dump rcalls together fault
FUZZ_S         ?= 60
FUZZ_JOBS      ?= 1
FUZZ_CC        ?= clang
FUZZ_RP        := build/fuzz-replay
FUZZ_FZ        := build/fuzz
# Every parser lives in libmetis, the front ends' library, two replayer files or RefFS's library.
FUZZ_LIB_SRC   := $(METIS_SRC) $(CLI_SRC) $(addprefix replayer/,trace/trace.c trace/runlog.c commands/cli.c trace/check.c)
# UBSan stops at the first report, so that a replay or the fuzzer sees it as a crash.
FUZZ_SAN       := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS     = $(filter-out -Werror -fsanitize%,$(CFLAGS)) $(REPORT_CFLAGS) -Itests/fuzz/driver

$(FUZZ_RP)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -c -o $@ $<

$(FUZZ_FZ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<

# RefFS's objects keep their internal names to themselves, as in its own archive (reffs/rules.mk).
$(FUZZ_RP)/libparsers.a: $(FUZZ_LIB_SRC:%.c=$(FUZZ_RP)/%.o)
$(FUZZ_FZ)/libparsers.a: $(FUZZ_LIB_SRC:%.c=$(FUZZ_FZ)/%.o)
$(FUZZ_RP)/libreffs.a: $(REFFS_LIB_SRC:%.c=$(FUZZ_RP)/%.o)
	$(reffs_archive)
$(FUZZ_FZ)/libreffs.a: $(REFFS_LIB_SRC:%.c=$(FUZZ_FZ)/%.o)
	$(reffs_archive)
$(FUZZ_RP)/libparsers.a $(FUZZ_FZ)/libparsers.a:
	rm -f $@
	$(AR) rcs $@ $^

FUZZ_LINK = $(LDLIBS) $(REPORT_LIBS)

# Each harness's source lies in the room of its parser family (tests/fuzz/ROOM/fuzz_H.c);
# fuzz_obj DIR,H names its object under DIR. replay_H is make check's replay driver (main() in
# tests/fuzz/driver/replay.c feeds each file to the harness), fuzz_H its libFuzzer build.
fuzz_obj = $(1)/$(patsubst %.c,%.o,$(or $(wildcard tests/fuzz/*/fuzz_$(2).c),$(error fuzz: no tests/fuzz/*/fuzz_$(2).c for harness $(2))))

define fuzz_harness_bins
$(FUZZ_RP)/bin/replay_$(1): $(call fuzz_obj,$(FUZZ_RP),$(1)) $(FUZZ_RP)/tests/fuzz/driver/fuzz_common.o \
                            $(FUZZ_RP)/tests/fuzz/driver/replay.o $(FUZZ_RP)/libparsers.a $(FUZZ_RP)/libreffs.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(FUZZ_SAN) -o $$@ $$^ $$(FUZZ_LINK)

$(FUZZ_FZ)/bin/fuzz_$(1): $(call fuzz_obj,$(FUZZ_FZ),$(1)) $(FUZZ_FZ)/tests/fuzz/driver/fuzz_common.o \
                          $(FUZZ_FZ)/libparsers.a $(FUZZ_FZ)/libreffs.a
	@mkdir -p $$(dir $$@)
	$$(FUZZ_CC) $$(FUZZ_SAN) -fsanitize=fuzzer -o $$@ $$^ $$(FUZZ_LINK)
endef
$(foreach h,$(FUZZ_HARNESSES),$(eval $(call fuzz_harness_bins,$(h))))

$(FUZZ_RP)/bin/seed_reffs: $(FUZZ_RP)/tests/fuzz/reffs/seed_reffs.o $(FUZZ_RP)/libreffs.a
	$(CC) $(FUZZ_SAN) -o $@ $^ $(FUZZ_LINK)

.PHONY: fuzz fuzz-replay fuzz-replay-build fuzz-seeds
.PRECIOUS: $(FUZZ_RP)/%.o $(FUZZ_FZ)/%.o

# Every corpus file through its harness once (part of make check): a crash, a sanitizer report
# or a refusal that is not one line fails it.
fuzz-replay: fuzz-replay-build
	@tests/fuzz/driver/replay.sh $(FUZZ_RP)/bin $(FUZZ_HARNESSES)

fuzz-replay-build: $(FUZZ_HARNESSES:%=$(FUZZ_RP)/bin/replay_%)

fuzz:
	@scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory $(FUZZ_HARNESSES:%=$(FUZZ_FZ)/bin/fuzz_%)
	@FUZZ_JOBS=$(FUZZ_JOBS) tests/fuzz/driver/run.sh $(FUZZ_FZ) $(FUZZ_S) $(or $(FUZZ_ONLY),$(FUZZ_HARNESSES))

# The pickle and dump seeds, made by RefFS's library (committed; rerun after a format change).
fuzz-seeds: $(FUZZ_RP)/bin/seed_reffs
	@mkdir -p tests/fuzz/corpus/pickle tests/fuzz/corpus/dump
	$< tests/fuzz/corpus/pickle tests/fuzz/corpus/dump

# Top-level build of Metis and RefFS: each directory adds its targets through rules.mk.
# The one place the version is set: every program's --version prints it (METIS_VERSION).
VERSION    := 0.2.0
PREFIX     ?= /usr/local
MANDIR     ?= $(PREFIX)/share/man
CAMPAIGN_S ?= 600
CC         ?= cc
BUILD      := build
BIN        := bin
LIBDIR     := lib/metis
PKGS       := fuse3 inih libzstd libcrypto
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# The front ends (fs-state/front/) read JSON with json-c: bin/metis links it, pan does not.
REPORT_PKGS   := json-c
REPORT_CFLAGS := $(shell pkg-config --cflags $(REPORT_PKGS) 2>/dev/null)
REPORT_LIBS   := $(shell pkg-config --libs $(REPORT_PKGS) 2>/dev/null)
CFLAGS     ?= -O2 -g
CFLAGS     += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -MMD -MP \
              -DMETIS_VERSION='"$(VERSION)"' -Ireffs -Ifs-state -Ireplayer -Ifaultdev $(PKG_CFLAGS)
LDLIBS     += $(PKG_LIBS) -lpthread -lm
ifeq ($(WERROR),1)
CFLAGS     += -Werror
endif
ifeq ($(SANITIZE),1)
CFLAGS     += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=address,undefined
BUILD      := build/san
BIN        := build/san/bin
LIBDIR     := build/san/lib/metis
endif
export METIS_BIN := $(abspath $(BIN))
export SANITIZE

.PHONY: targets-deps campaign soak fsx search-table search-pooled
.PHONY: all deps run check check-symbols check-cycles check-includes unit integration bench install clean mutations
all:

# Every object lands in $(BUILD), mirroring the source tree.
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

include reffs/rules.mk
include faultdev/rules.mk
include fs-state/rules.mk
include replayer/rules.mk
include tests/rules.mk
include tests/fuzz/rules.mk
include tests/fsx/rules.mk

deps:
	@scripts/deps.sh

# What make deps installs and the FUSE file systems the target profiles test (configs/targets/):
# make check needs them (every shipped target bug is replayed on its target), make run does not.
targets-deps:
	@scripts/deps.sh --targets

# Every installed target profile for CAMPAIGN_S seconds (default 600), then FINDINGS.md.
campaign: deps
	@$(MAKE) --no-print-directory all
	@CAMPAIGN_S=$(CAMPAIGN_S) scripts/campaign.sh $(PROFILES)

# Every shipped config and installed profile toward SOAK_OPS operations each, resumable
# (scripts/soak.sh; not part of make check).
soak: deps
	@$(MAKE) --no-print-directory all
	@scripts/soak.sh $(SOAK_CONFIGS)

run: deps
	@$(MAKE) --no-print-directory all
	@scripts/run-default.sh

# What the checks run is built on every core first; the checks themselves run one after another.
check: targets-deps
	@$(MAKE) --no-print-directory -j$(shell nproc) all $(UNIT_BIN) fuzz-replay-build
	@$(MAKE) --no-print-directory check-symbols check-cycles check-includes unit fuzz-replay integration

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/metis $(DESTDIR)$(PREFIX)/share/metis
	install -m 755 $(wildcard $(BIN)/*) $(DESTDIR)$(PREFIX)/bin/
	cp -r $(LIBDIR)/. $(DESTDIR)$(PREFIX)/lib/metis/
	cp -r configs $(DESTDIR)$(PREFIX)/share/metis/
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 man/*.8 $(DESTDIR)$(MANDIR)/man8/

# No two object files, rooms (a source with its header) or folders of fs-state, the replayer or
# RefFS's library may use each other in a circle (scripts/check-cycles.py; --why names each use
# in one). reffs/lib, not reffs: RefFS keeps its public header above its library on purpose.
check-cycles: all
	@scripts/check-cycles.py --build $(BUILD) --folders fs-state --folders replayer --folders reffs/lib fs-state replayer reffs faultdev

# Every #include "..." of fs-state, replayer and reffs keeps to who may use what
# (scripts/include-rules.txt, from fs-state/README.md's table).
check-includes:
	@scripts/check-includes.py scripts/include-rules.txt

clean:
	rm -rf build bin lib

-include $(shell find build -name '*.d' 2>/dev/null)

# Plants each RefFS mutation in turn and requires Metis to catch it (see tests/mutations/).
mutations: deps
	@$(MAKE) --no-print-directory all
	@tests/mutations/run.sh $(MUTATIONS)

# Operations to the first report of every observable mutation: the default search against the
# random walk, 5 seeds each (tests/mutations/search_table.sh; the README's search table).
search-table: deps
	@$(MAKE) --no-print-directory all
	@tests/mutations/search_table.sh $(MUTATIONS)

# The same comparison on 30 searches per mutation and search kind, each search's first report a
# sample (tests/mutations/search_pooled.sh; the README's pooled table), and how likely a 5-seed
# table meets the search criterion (tests/mutations/search_criterion.py).
search-pooled: deps
	@$(MAKE) --no-print-directory all
	@tests/mutations/search_pooled.sh $(MUTATIONS)

# Metis engine: libmetis (the kit the generated pan links) and the bin/metis front ends (cli, swarm, report).
# libmetis.a: the engine (engine/), the tree model (tree/), the backends (backend/) and the
# leaf helpers they share (lib/); pan needs nothing else, and its kit holds one header:
# driver.h, the entry points pan calls.
METIS_SRC  := $(wildcard fs-state/lib/*/*.c fs-state/tree/*.c fs-state/backend/*.c fs-state/backend/*/*.c fs-state/backend/*/*/*.c fs-state/engine/*/*.c) faultdev/faultdev_states.c
METIS_OBJ  := $(METIS_SRC:%.c=$(BUILD)/%.o)
LIBMETIS   := $(LIBDIR)/libmetis.a

# The front ends, bin/metis only: the command line (front/cli/), the swarm launcher
# (front/swarm/), report.html (front/report/) and the JSON reader they share (front/json/).
METIS_MAIN := fs-state/front/metis_main.c
CLI_SRC    := $(filter-out $(METIS_MAIN),$(wildcard fs-state/front/*.c fs-state/front/*/*.c fs-state/front/*/*/*.c))
CLI_OBJ    := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIBCLI     := $(BUILD)/libmetis-cli.a

# pan.c is compiled at run time against this kit: the library, its header and link flags.
$(LIBMETIS): $(METIS_OBJ) fs-state/engine/search/driver.h
	@mkdir -p $(LIBDIR)/include
	rm -f $@ $(LIBDIR)/include/*.h
	$(AR) rcs $@ $(METIS_OBJ)
	cp fs-state/engine/search/driver.h $(LIBDIR)/include/
	echo '$(filter -fsanitize%,$(CFLAGS)) $(LDLIBS)' > $(LIBDIR)/ldflags

# The front ends read JSON through front/json/json_reader.h (json-c); libmetis never links json-c.
$(CLI_OBJ) $(METIS_MAIN:%.c=$(BUILD)/%.o): CFLAGS += $(REPORT_CFLAGS)

$(LIBCLI): $(CLI_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BIN)/metis: $(METIS_MAIN:%.c=$(BUILD)/%.o) $(LIBCLI) $(LIBMETIS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(REPORT_LIBS)

all: $(BIN)/metis

# metis_main.c prints the version, which is set in the Makefile.
$(METIS_MAIN:%.c=$(BUILD)/%.o): Makefile

# Metis engine: libmetis (the kit the generated pan links), the bin/metis front end, its swarm launcher and report.
# libmetis.a: the engine (flat fs-state/*.c) and its backends (fs-state/backend/); pan needs
# nothing else, and its kit holds one header: driver.h, the entry points pan calls.
METIS_SRC  := $(wildcard fs-state/*.c fs-state/tree/*.c fs-state/backend/*.c)
METIS_OBJ  := $(METIS_SRC:%.c=$(BUILD)/%.o)
LIBMETIS   := $(LIBDIR)/libmetis.a

# The front end (fs-state/cli/), the swarm launcher (fs-state/swarm/) and report.html
# (fs-state/report/, with json-c): bin/metis only.
CLI_SRC    := $(filter-out fs-state/cli/main.c,$(wildcard fs-state/cli/*.c fs-state/swarm/*.c))
REPORT_SRC := $(wildcard fs-state/report/*.c)
CLI_OBJ    := $(CLI_SRC:%.c=$(BUILD)/%.o) $(REPORT_SRC:%.c=$(BUILD)/%.o)
LIBCLI     := $(BUILD)/libmetis-cli.a

# pan.c is compiled at run time against this kit: the library, its header and link flags.
$(LIBMETIS): $(METIS_OBJ) fs-state/driver.h
	@mkdir -p $(LIBDIR)/include
	rm -f $@ $(LIBDIR)/include/*.h
	$(AR) rcs $@ $(METIS_OBJ)
	cp fs-state/driver.h $(LIBDIR)/include/
	echo '$(filter -fsanitize%,$(CFLAGS)) $(LDLIBS)' > $(LIBDIR)/ldflags

# The front end, the swarm and report.html read JSON through report/rjson.h (json-c).
$(CLI_OBJ): CFLAGS += $(REPORT_CFLAGS)

$(LIBCLI): $(CLI_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BIN)/metis: $(BUILD)/fs-state/cli/main.o $(LIBCLI) $(LIBMETIS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(REPORT_LIBS)

all: $(BIN)/metis

# cli/main.c prints the version, which is set in the Makefile.
$(BUILD)/fs-state/cli/main.o: Makefile

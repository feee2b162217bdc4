# Metis engine: libmetis (linked into the generated pan), the bin/metis front end, and its kit.
# fs-state/report/: the sampler (samples.csv) is part of the engine, so of libmetis; the rest
# builds report.html with json-c and is linked into bin/metis only.
REPORT_LIB_SRC := fs-state/report/sampler.c
REPORT_SRC := $(filter-out $(REPORT_LIB_SRC),$(wildcard fs-state/report/*.c))
REPORT_OBJ := $(REPORT_SRC:%.c=$(BUILD)/%.o)
METIS_SRC  := $(filter-out fs-state/main.c,$(wildcard fs-state/*.c)) $(REPORT_LIB_SRC)
METIS_OBJ  := $(METIS_SRC:%.c=$(BUILD)/%.o)
LIBMETIS   := $(LIBDIR)/libmetis.a

# pan.c is compiled at run time against this kit: the library, its headers and link flags.
$(LIBMETIS): $(METIS_OBJ) $(wildcard fs-state/*.h) reffs/reffs_ioctl.h
	@mkdir -p $(LIBDIR)/include
	$(AR) rcs $@ $(METIS_OBJ)
	cp fs-state/*.h reffs/reffs_ioctl.h $(LIBDIR)/include/
	echo '$(filter -fsanitize%,$(CFLAGS)) $(LDLIBS)' > $(LIBDIR)/ldflags

$(REPORT_OBJ): CFLAGS += $(REPORT_CFLAGS)

$(BIN)/metis: $(BUILD)/fs-state/main.o $(REPORT_OBJ) $(LIBMETIS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(REPORT_LIBS)

all: $(BIN)/metis

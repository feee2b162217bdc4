# Metis engine: libmetis (linked into the generated pan), the bin/metis front end, and its kit.
METIS_SRC  := $(filter-out fs-state/main.c,$(wildcard fs-state/*.c))
METIS_OBJ  := $(METIS_SRC:%.c=$(BUILD)/%.o)
LIBMETIS   := $(LIBDIR)/libmetis.a

# pan.c is compiled at run time against this kit: the library, its headers and link flags.
$(LIBMETIS): $(METIS_OBJ) $(wildcard fs-state/*.h) reffs/reffs_ioctl.h
	@mkdir -p $(LIBDIR)/include
	$(AR) rcs $@ $(METIS_OBJ)
	cp fs-state/*.h reffs/reffs_ioctl.h $(LIBDIR)/include/
	echo '$(filter -fsanitize%,$(CFLAGS)) $(LDLIBS)' > $(LIBDIR)/ldflags

$(BIN)/metis: $(BUILD)/fs-state/main.o $(LIBMETIS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

all: $(BIN)/metis

# main.c prints the version, which is set in the Makefile.
$(BUILD)/fs-state/main.o: Makefile

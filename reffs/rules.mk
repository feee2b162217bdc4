# RefFS: the library (reffs/lib), the FUSE daemon, reffsctl, and the mutant build.
REFFS_LIB_SRC  := $(wildcard reffs/lib/*/*.c)
REFFS_LIB_OBJ  := $(REFFS_LIB_SRC:%.c=$(BUILD)/%.o)
REFFS_MUT_OBJ  := $(REFFS_LIB_SRC:%.c=$(BUILD)/mutant/%.o)
LIBREFFS       := $(BUILD)/libreffs.a
LIBREFFS_MUT   := $(BUILD)/libreffs-mutant.a

OBJCOPY        ?= objcopy

# Each archive holds one relocatable object: only within it can the hidden internal symbols
# (see lib/core/internal.h) be made local, so a program linking RefFS sees nothing but reffs_ names.
define reffs_archive
	@mkdir -p $(dir $@)
	$(LD) -r -o $(basename $@).o $^
	$(OBJCOPY) --localize-hidden $(basename $@).o
	rm -f $@
	$(AR) rcs $@ $(basename $@).o
endef

$(LIBREFFS): $(REFFS_LIB_OBJ)
	$(reffs_archive)

$(LIBREFFS_MUT): $(REFFS_MUT_OBJ)
	$(reffs_archive)

$(BUILD)/mutant/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DREFFS_MUTANT -c -o $@ $<

$(BIN)/reffs: $(BUILD)/reffs/daemon.o $(LIBREFFS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BIN)/reffs-mutant: $(BUILD)/mutant/reffs/daemon.o $(LIBREFFS_MUT)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BIN)/reffsctl: $(BUILD)/reffs/reffsctl.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# They print the version, which is set in the Makefile.
$(BUILD)/reffs/daemon.o $(BUILD)/mutant/reffs/daemon.o $(BUILD)/reffs/reffsctl.o: Makefile

all: $(BIN)/reffs $(BIN)/reffs-mutant $(BIN)/reffsctl

# Fails when either archive defines a global outside the reffs_ namespace (part of make check).
check-symbols: $(LIBREFFS) $(LIBREFFS_MUT)
	@scripts/check-symbols.sh $^

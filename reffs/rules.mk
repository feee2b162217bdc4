# RefFS: the library (reffs/lib), the FUSE daemon, reffsctl, and the mutant build.
REFFS_LIB_SRC  := $(wildcard reffs/lib/*.c)
REFFS_LIB_OBJ  := $(REFFS_LIB_SRC:%.c=$(BUILD)/%.o)
REFFS_MUT_OBJ  := $(REFFS_LIB_SRC:%.c=$(BUILD)/mutant/%.o)
LIBREFFS       := $(BUILD)/libreffs.a
LIBREFFS_MUT   := $(BUILD)/libreffs-mutant.a

$(LIBREFFS): $(REFFS_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(LIBREFFS_MUT): $(REFFS_MUT_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

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

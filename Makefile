# amber - top-level Makefile.
#
# Dependency order (checked by `make check-layering`, part of `make test`):
#     record  -> format -> common
#     analyze -> format -> common
#     inside analyze/: cmd -> view -> resolve -> replay
# record/ and analyze/ never include each other; format/ includes only
# common/; common/ includes nothing of ours.  A layer of analyze/ includes
# of the layers below it only their public header (replay/replay.h,
# resolve/resolve.h, view/view.h).  Sources are found in subfolders too.
#
# Objects go under build/: build/obj (release), build/san (ASan+UBSan, for
# unit tests), build/fuzz (clang, libFuzzer).  V=1 shows the commands.

VERSION    := 0.1.0
# ABI version of libamber-format.so: bumped on every incompatible change of
# <amber/format.h> or <amber/common.h> (the SONAME is libamber-format.so.$(ABI)).
ABI        := 0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
CC         ?= cc
FUZZ_CC    ?= clang
B          := build

# Build on every CPU unless the command line says otherwise (make -jN wins
# over this): the README's `make test` builds its four trees in parallel.
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# pkg-config for every library that ships a .pc file; libpfm4 ships none
# (nor does libiberty, linked through IBERTY_OBJ below).
PKGS_FORMAT  := libzstd libxxhash
PKGS_RECORD  := libelf numa
PKGS_ANALYZE := libdw libelf libtraceevent libprotobuf-c zlib
LIBS_RECORD_EXTRA := -lpfm

pc_cflags = $(shell pkg-config --cflags $(1) 2>/dev/null)
pc_libs   = $(shell pkg-config --libs $(1) 2>/dev/null)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-unused-parameter -Wvla
CFLAGS   ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -I. -I$(B)/gen -Iformat/include -Icommon/include -D_GNU_SOURCE -DAMB_VERSION='"$(VERSION)"' \
              $(call pc_cflags,$(PKGS_FORMAT) $(PKGS_RECORD) $(PKGS_ANALYZE) cmocka)
SAN_FLAGS  := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all

LIBS_FORMAT  := $(call pc_libs,$(PKGS_FORMAT)) -lpthread -lm
LIBS_RECORD  := $(call pc_libs,$(PKGS_RECORD)) $(LIBS_RECORD_EXTRA) $(LIBS_FORMAT)
LIBS_ANALYZE := $(call pc_libs,$(PKGS_ANALYZE)) $(LIBS_FORMAT)

# libiberty's demangler (symbols.c), from the static library into one
# object whose only global symbol is ana_cplus_demangle(): linked as the
# archive is, its globals (cplus_demangle, xmalloc, _sch_istable ...)
# would be the analyzer's own.  Every analyzer link takes this object.
IBERTY_OBJ := $(B)/iberty/demangle.o
LIBS_CMOCKA  := $(call pc_libs,cmocka)

# Every .c file under a directory, subfolders included.
srcs_under = $(sort $(shell find $(1) -name '*.c' 2>/dev/null))
COMMON_SRC  := $(call srcs_under,common)
FORMAT_SRC  := $(call srcs_under,format)
RECORD_SRC  := $(call srcs_under,record)
# pprof export: profile.proto compiled by protoc-c at build time into $(B)/gen.
PROTO_SRC   := analyze/view/profile.proto
PROTO_GEN   := $(B)/gen/profile.pb-c.c
ANALYZE_SRC := $(call srcs_under,analyze) $(PROTO_GEN)
# The main() of each tool is left out of what unit tests and fuzzers link.
RECORD_LIB_SRC  := $(filter-out record/amber_rec.c,$(RECORD_SRC))
ANALYZE_LIB_SRC := $(filter-out analyze/cmd/amber_analyze.c,$(ANALYZE_SRC))

obj = $(patsubst %.c,$(B)/$(1)/%.o,$(2))

# The format library: format/ and common/.  Its objects are compiled with
# -fvisibility=hidden (every build flavour, so that tests see what users
# get): only functions marked AMB_API in the installed headers are exported
# from the shared library.  Release objects are position-independent: the
# same objects make the .a, the .so and the tools.
LIB_SRC     := $(FORMAT_SRC) $(COMMON_SRC)
LIB_OBJ     := $(call obj,obj,$(LIB_SRC))
LIB_HEADERS := format/include/amber/format.h common/include/amber/common.h
# They are rebuilt when this Makefile changes, so that they never keep
# flags older than these.
LIB_OBJ_SAN  := $(call obj,san,$(LIB_SRC))
LIB_OBJ_FUZZ := $(call obj,fuzz/obj,$(LIB_SRC))
$(LIB_OBJ): LIB_CFLAGS := -fPIC -fvisibility=hidden
$(LIB_OBJ_SAN) $(LIB_OBJ_FUZZ): LIB_CFLAGS := -fvisibility=hidden
$(LIB_OBJ) $(LIB_OBJ_SAN) $(LIB_OBJ_FUZZ): Makefile

LIBFORMAT := $(B)/libamber-format.a
LIBSO     := $(B)/libamber-format.so
LIBSO_ABI := $(LIBSO).$(ABI)
LIBSO_VER := $(LIBSO).$(VERSION)
REC       := $(B)/amber-rec
ANA       := $(B)/amber-analyze

UNIT_SRC  := $(sort $(wildcard tests/unit/*/test_*.c))
UNIT_BIN  := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(UNIT_SRC))
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN  := $(patsubst tests/fuzz/%.c,$(B)/fuzz/bin/%,$(FUZZ_SRC))
PROG_SRC  := $(sort $(wildcard testdata/programs/*.c))

.PHONY: all deps test unit tools fuzz corrupt bench bench-rotation check-layering install clean demo programs static mutate
.DEFAULT_GOAL := all
# Keep objects made through pattern rules (make would delete them as intermediates).
.SECONDARY:

all: $(LIBFORMAT) $(LIBSO) $(REC) $(ANA)

# --- generated sources (protoc-c), compiled without -Werror: not our code ---
$(B)/gen/profile.pb-c.c $(B)/gen/profile.pb-c.h: $(PROTO_SRC)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  PROTOC  $<")
	$(Q)protoc-c --proto_path=$(dir $<) --c_out=$(B)/gen $<
GEN_CFLAGS = $(filter-out -Werror -Wmissing-prototypes -Wshadow,$(ALL_CFLAGS))
$(B)/obj/$(B)/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(GEN_CFLAGS) -c $< -o $@
$(B)/san/$(B)/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(GEN_CFLAGS) $(SAN_FLAGS) -c $< -o $@
$(B)/fuzz/obj/$(B)/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(GEN_CFLAGS) $(FUZZ_FLAGS) -c $< -o $@
# What includes the generated header waits for it.
$(foreach v,obj san fuzz/obj,$(B)/$(v)/analyze/view/export_pprof.o): $(B)/gen/profile.pb-c.h

# --- release objects --------------------------------------------------------
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(LIB_CFLAGS) -MMD -MP -c $< -o $@

$(LIBFORMAT): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# -z defs: every symbol the library uses comes from a library it names.
$(LIBSO_VER): $(LIB_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,$(notdir $(LIBSO_ABI)) -Wl,-z,defs \
		-o $@ $^ $(LIBS_FORMAT)
$(LIBSO_ABI): $(LIBSO_VER)
	$(Q)ln -sf $(notdir $<) $@
$(LIBSO): $(LIBSO_ABI)
	$(Q)ln -sf $(notdir $<) $@

$(REC): $(call obj,obj,$(RECORD_SRC)) $(LIBFORMAT)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS_RECORD)

$(IBERTY_OBJ): Makefile
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) -r -u cplus_demangle -o $@.tmp "$$($(CC) -print-file-name=libiberty.a)"
	$(Q)objcopy --redefine-sym cplus_demangle=ana_cplus_demangle \
		--keep-global-symbol=ana_cplus_demangle $@.tmp $@
	$(Q)rm -f $@.tmp

$(ANA): $(call obj,obj,$(ANALYZE_SRC)) $(IBERTY_OBJ) $(LIBFORMAT)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS_ANALYZE)

# --- one amber-rec to copy onto any Linux host (make static) ------------------
# The same objects linked with -static against Debian's static archives
# (libelf.a and the libz.a it needs, libzstd.a, libxxhash.a, libpfm.a,
# libnuma.a) and glibc's libc.a, then stripped: no shared library, no
# interpreter.  ld warns that getpwnam_r (-u NAME) and getaddrinfo (in
# libnuma, never called) would load NSS modules at run time: a static
# glibc reads /etc/passwd itself and no module (README: "One file to
# deploy").
STATIC_REC  := $(B)/static/amber-rec
LIBS_STATIC := $(shell pkg-config --static --libs libelf numa 2>/dev/null) $(LIBS_RECORD_EXTRA) \
               $(shell pkg-config --static --libs $(PKGS_FORMAT) 2>/dev/null) -lpthread -lm
static: $(STATIC_REC)
$(STATIC_REC): $(call obj,obj,$(RECORD_SRC)) $(LIBFORMAT)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@ (static)")
	$(Q)$(CC) $(CFLAGS) -static -s -o $@ $^ $(LIBS_STATIC)

# --- sanitizer objects and unit tests ----------------------------------------
$(B)/san/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC san  $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(LIB_CFLAGS) $(SAN_FLAGS) -MMD -MP -c $< -o $@

SAN_BASE    := $(LIB_OBJ_SAN)
SAN_RECORD  := $(call obj,san,$(RECORD_LIB_SRC))
SAN_ANALYZE := $(call obj,san,$(ANALYZE_LIB_SRC))

UNIT_BIN_OF = $(filter $(B)/tests/unit/$(1)/%,$(UNIT_BIN))
$(call UNIT_BIN_OF,common) $(call UNIT_BIN_OF,format): $(B)/tests/unit/%: tests/unit/%.c $(SAN_BASE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $(filter %.c %.o,$^) $(LIBS_FORMAT) $(LIBS_CMOCKA)
# --build-id: test_synthesize reads the test program's own build-id note.
$(call UNIT_BIN_OF,record): $(B)/tests/unit/%: tests/unit/%.c $(SAN_RECORD) $(SAN_BASE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -Wl,--build-id -o $@ $(filter %.c %.o,$^) $(LIBS_RECORD) $(LIBS_CMOCKA)
$(call UNIT_BIN_OF,analyze): $(B)/tests/unit/%: tests/unit/%.c $(SAN_ANALYZE) $(IBERTY_OBJ) $(SAN_BASE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $(filter %.c %.o,$^) $(LIBS_ANALYZE) $(LIBS_CMOCKA)

# amber-analyze built with ASan and UBSan, for the corruption campaign
# (tests/cli/test_corruption.sh): a damaged file must never make it touch
# memory it should not.
SAN_ANA := $(B)/san/amber-analyze
$(SAN_ANA): $(call obj,san,$(ANALYZE_SRC)) $(IBERTY_OBJ) $(SAN_BASE)
	@$(if $(Q),echo "  LD san  $@")
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(LIBS_ANALYZE)

# --- fuzz targets (libFuzzer) -----------------------------------------------
$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC fuzz $<")
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) $(LIB_CFLAGS) $(FUZZ_FLAGS) -MMD -MP -c $< -o $@

FUZZ_BASE    := $(LIB_OBJ_FUZZ)
FUZZ_RECORD  := $(call obj,fuzz/obj,$(RECORD_LIB_SRC))
FUZZ_ANALYZE := $(call obj,fuzz/obj,$(ANALYZE_LIB_SRC))
FUZZ_LINK    := -O1 -g -fsanitize=fuzzer,address,undefined
# fuzz_rec_*.c fuzz the recorder's parsers; every other target links analyze/.
# Static pattern rules: make must not pick between two implicit rules.
FUZZ_REC_BIN := $(filter $(B)/fuzz/bin/fuzz_rec_%,$(FUZZ_BIN))
FUZZ_ANA_BIN := $(filter-out $(FUZZ_REC_BIN),$(FUZZ_BIN))
$(FUZZ_REC_BIN): $(B)/fuzz/bin/%: tests/fuzz/%.c $(FUZZ_RECORD) $(FUZZ_BASE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_LINK) -o $@ $^ $(LIBS_RECORD)
$(FUZZ_ANA_BIN): $(B)/fuzz/bin/%: tests/fuzz/%.c $(FUZZ_ANALYZE) $(IBERTY_OBJ) $(FUZZ_BASE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_LINK) -o $@ $^ $(LIBS_ANALYZE)

# --- test and benchmark tools (tests/tools/*.c, linked with the format library)
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TOOL_BIN := $(patsubst tests/tools/%.c,$(B)/tools/%,$(TOOL_SRC))
# rec_*.c run the recorder's code on files and link record/ too.
TOOL_REC_BIN := $(filter $(B)/tools/rec_%,$(TOOL_BIN))
TOOL_FMT_BIN := $(filter-out $(TOOL_REC_BIN),$(TOOL_BIN))
$(TOOL_FMT_BIN): $(B)/tools/%: tests/tools/%.c $(LIBFORMAT)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TOOL    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS_FORMAT)
$(TOOL_REC_BIN): $(B)/tools/%: tests/tools/%.c $(call obj,obj,$(RECORD_LIB_SRC)) $(LIBFORMAT)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TOOL    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS_RECORD)
tools: $(TOOL_BIN)

# --- bundled test programs --------------------------------------------------
programs: all
	$(Q)$(MAKE) --no-print-directory -C testdata/programs B=$(abspath $(B))/programs

# --- targets ------------------------------------------------------------------
deps:
	$(Q)sh tests/deps.sh

check-layering:
	$(Q)sh tests/check_layering.sh

unit: $(UNIT_BIN)

test: all unit tools $(FUZZ_BIN) $(SAN_ANA) programs static
	$(Q)sh tests/run_all.sh $(B)

# Break the code on purpose, one mutation at a time, in a scratch copy, and
# check that a test notices each (tests/mutate.sh; not part of make test).
mutate: all unit tools programs
	$(Q)AMB_BUILD=$(B) sh tests/mutate.sh

# Every fuzz target for FUZZ_SECONDS, then the corruption campaign at its
# large size (make corrupt alone: CORRUPT_RUNS damaged files, a random seed).
fuzz: $(FUZZ_BIN) corrupt
	$(Q)sh tests/fuzz/run.sh $(B) $${FUZZ_SECONDS:-300}

corrupt: all tools $(SAN_ANA)
	$(Q)AMB_BUILD=$(abspath $(B)) AMB_CORRUPT_RUNS=$${CORRUPT_RUNS:-2000} \
		AMB_CORRUPT_SEED=$${CORRUPT_SEED:-random} sh tests/cli/test_corruption.sh

bench: all tools programs
	$(Q)sh tests/bench/run.sh $(B)

# The 10-minute rotation run alone (also part of `make bench`).
bench-rotation: all programs
	$(Q)sh tests/bench/rotation.sh $(B)

demo: all programs
	$(Q)sh tests/demo.sh $(B)

# The .pc file names the install directories, so it is made at install time.
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/amber
	install -m 755 $(REC) $(ANA) $(DESTDIR)$(BINDIR)/
	install -m 644 $(LIBFORMAT) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIBSO_VER) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBSO_VER)) $(DESTDIR)$(LIBDIR)/$(notdir $(LIBSO_ABI))
	ln -sf $(notdir $(LIBSO_ABI)) $(DESTDIR)$(LIBDIR)/$(notdir $(LIBSO))
	install -m 644 $(LIB_HEADERS) $(DESTDIR)$(INCLUDEDIR)/amber/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@REQUIRES_PRIVATE@|$(PKGS_FORMAT)|' \
	    format/amber-format.pc.in > $(B)/amber-format.pc
	install -m 644 $(B)/amber-format.pc $(DESTDIR)$(LIBDIR)/pkgconfig/

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)

#!/bin/sh
# `make install` puts the tools, the format library (static, and shared with
# its SONAME links), its two headers and a pkg-config file under PREFIX.
# Programs outside the tree, written here into $T, build against them with
# `pkg-config amber-format` (shared, static, and the header as C++) and read
# a recording; the shared library exports exactly the functions that the
# installed headers declare with AMB_API, and no internal helper.
. "$(dirname "$0")/lib.sh"

need_cmd install cc || finish
need_cmd install c++ || finish
need_cmd install pkg-config || finish
need_cmd install nm || finish
need_cmd install readelf || finish

U=$T/usr
if ! make -C "$ROOT" --no-print-directory -s install B="$B" PREFIX="$U" >"$T/install.log" 2>&1; then
	fail install "make install failed: $(tail -3 "$T/install.log")"
	finish
fi
missing=""
for f in bin/amber-rec bin/amber-analyze lib/libamber-format.a lib/libamber-format.so \
	 lib/libamber-format.so.0 include/amber/format.h include/amber/common.h \
	 lib/pkgconfig/amber-format.pc; do
	[ -e "$U/$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	fail install_files "missing after make install:$missing"
else
	ok install_files
fi

# Only the public headers, and they include nothing of ours but
# <amber/common.h> (the programs below show that they need nothing else).
hdrs=$(cd "$U/include/amber" 2>/dev/null && echo *)
others=$(cat "$U"/include/amber/*.h 2>/dev/null | sed -n 's/^#[[:space:]]*include[[:space:]]*//p' |
	grep -e '^"' -e '^<amber/' | grep -v '^<amber/common\.h>')
if [ "$hdrs" != "common.h format.h" ]; then
	fail install_headers "include/amber holds: $hdrs"
elif [ -n "$others" ]; then
	fail install_headers "the installed headers include: $others"
else
	ok install_headers
fi

soname=$(readelf -d "$U/lib/libamber-format.so" 2>&1 | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = libamber-format.so.0 ]; then
	ok install_soname
else
	fail install_soname "SONAME is '$soname', not libamber-format.so.0"
fi

export PKG_CONFIG_PATH="$U/lib/pkgconfig"
prefix=$(pkg-config --variable=prefix amber-format 2>&1)
if [ "$prefix" = "$U" ]; then
	ok install_pc_prefix
else
	fail install_pc_prefix "prefix is '$prefix', not $U"
fi

# A reader of the installed API: every block loaded, the META pairs decoded,
# then a verbatim copy written with options declared by AMB_OPTS, verified.
cat > "$T/reader.c" <<'C'
#include <stdio.h>
#include <amber/format.h>

int main(int argc, char **argv)
{
	struct amb_block_filter meta = { AMB_BLOCK_META, -1, 0, 0 };
	AMB_OPTS(amb_writer_opts, wo, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	AMB_OPTS(amb_copy_opts, co, .flags = AMB_COPY_DECODE);
	struct amb_payload *p;
	struct amb_reader *r;
	struct amb_writer *w;
	const void *data;
	size_t i, len, loaded = 0, pairs = 0;
	long copied;
	int err;

	if (argc != 3)
		return 2;
	err = amb_reader_open(argv[1], AMB_READ_VERIFY, &r);
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[1], amb_strerror(err));
		return 1;
	}
	p = amb_payload_new();
	if (!p)
		return 1;
	for (i = 0; i < amb_reader_block_count(r); i++) {
		if (amb_reader_load(r, i, p, &data, &len)) {
			fprintf(stderr, "%s\n", amb_payload_errmsg(p));
			return 1;
		}
		loaded++;
	}
	amb_reader_for_each_block(r, &meta, i) {
		struct amb_cursor c;
		struct amb_kv kv;

		if (amb_reader_load(r, i, p, &data, &len))
			return 1;
		amb_cursor_init(&c, data, len);
		while (amb_kv_next(&c, &kv) == 1)
			pairs++;
	}
	if (amb_writer_opts_from(&wo, r) || amb_writer_open(argv[2], &wo, &w))
		return 1;
	copied = amb_copy_blocks(r, w, &co);
	err = amb_writer_close(w);
	if (copied < 0 || err || amb_verify(argv[2], NULL, NULL, NULL) != 0)
		return 1;
	printf("%zu blocks, %zu loaded, %zu meta pairs, %ld copied, format %u.%u\n",
	       amb_reader_block_count(r), loaded, pairs, copied,
	       amb_reader_header(r)->major, amb_reader_header(r)->minor);
	amb_payload_free(p);
	amb_reader_close(r);
	return 0;
}
C
expect="13 blocks, 13 loaded, 3 meta pairs, 11 copied, format 1.0"
golden=$ROOT/testdata/valid/all_types.amber

# check_reader NAME BINARY [ENV...]: BINARY reads the golden file as expected.
check_reader() {
	_name=$1
	_bin=$2
	shift 2
	rm -f "$T/copy.amber"
	_out=$(env "$@" "$_bin" "$golden" "$T/copy.amber" 2>&1)
	if [ "$_out" = "$expect" ]; then
		ok "$_name"
	else
		fail "$_name" "expected '$expect', got: $_out"
	fi
}

# needed BINARY: the libraries BINARY names as DT_NEEDED.
needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

# Strict C99: the headers and AMB_OPTS are ISO C.
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"
# shellcheck disable=SC2046,SC2086 # pkg-config output is a list of words
if cc $STRICT -o "$T/reader" "$T/reader.c" $(pkg-config --cflags --libs amber-format) \
	2>"$T/cc.log"; then
	if needed "$T/reader" | grep -qx libamber-format.so.0; then
		check_reader install_shared "$T/reader" LD_LIBRARY_PATH="$U/lib"
	else
		fail install_shared "reader does not use libamber-format.so.0: $(needed "$T/reader" | tr '\n' ' ')"
	fi
else
	fail install_shared "does not build with pkg-config --cflags --libs: $(head -5 "$T/cc.log")"
fi

# Static: pkg-config --static adds zstd, xxhash and pthread; the archive
# is asked for by name, since -lamber-format alone picks the .so.
libs=$(pkg-config --static --libs amber-format | sed 's/-lamber-format/-l:libamber-format.a/')
# shellcheck disable=SC2046,SC2086
if cc $STRICT -o "$T/reader-static" "$T/reader.c" $(pkg-config --cflags amber-format) $libs \
	2>"$T/cc.log"; then
	if needed "$T/reader-static" | grep -q libamber-format; then
		fail install_static "the static build still needs the shared library"
	else
		check_reader install_static "$T/reader-static" -u LD_LIBRARY_PATH
	fi
else
	fail install_static "does not build with pkg-config --static: $(head -5 "$T/cc.log")"
fi

# The header as C++ (extern "C", no C-only constructs outside AMB_OPTS).
cat > "$T/reader.cc" <<'CXX'
#include <cstdio>
#include <amber/format.h>

int main(int argc, char **argv)
{
	amb_writer_opts wo = {};
	amb_reader *r;
	int err;

	wo.sz = sizeof(wo);
	if (argc < 2 || wo.sz != sizeof(amb_writer_opts))
		return 2;
	err = amb_reader_open(argv[1], 0, &r);
	if (err) {
		std::fprintf(stderr, "%s\n", amb_strerror(err));
		return 1;
	}
	std::printf("%zu blocks, %s\n", amb_reader_block_count(r),
		    amb_block_type_name(amb_reader_block(r, 0)->type));
	amb_reader_close(r);
	return 0;
}
CXX
# shellcheck disable=SC2046
if c++ -std=c++11 -Wall -Wextra -pedantic -Werror -o "$T/reader-cxx" "$T/reader.cc" \
	$(pkg-config --cflags --libs amber-format) 2>"$T/cxx.log"; then
	out=$(LD_LIBRARY_PATH="$U/lib" "$T/reader-cxx" "$golden" 2>&1)
	if [ "$out" = "13 blocks, meta" ]; then
		ok install_cxx
	else
		fail install_cxx "unexpected output: $out"
	fi
else
	fail install_cxx "the installed header does not compile as C++: $(head -5 "$T/cxx.log")"
fi

# Exports: exactly the functions the installed headers mark AMB_API, all
# named amb_*, each declared as the compiler sees the headers, and none of
# the internal helpers of the tree.
nm -D --defined-only "$U/lib/libamber-format.so" | awk 'NF >= 3 { print $NF }' | sort > "$T/exported"
sed -n 's/^AMB_API[^(]*[ *]\(amb_[a-z0-9_]*\)(.*/\1/p' "$U"/include/amber/*.h | sort > "$T/declared"
cat "$ROOT"/common/util.h "$ROOT"/common/hashmap.h "$ROOT"/format/format_internal.h |
	sed -n 's/^[a-z][^(]*[ *]\(amb_[a-z0-9_]*\)(.*/\1/p' | sort -u > "$T/internal"
# A function declared without the marker would be missing from both lists.
unmarked=$(grep -h '^[a-z].*amb_[a-z0-9_]*(' "$U"/include/amber/*.h | grep -v -e '^static ' -e '^typedef ')
not_amb=$(grep -v '^amb_' "$T/exported")
extra=$(comm -23 "$T/exported" "$T/declared")
lacking=$(comm -13 "$T/exported" "$T/declared")
leaked=$(comm -12 "$T/exported" "$T/internal")
{
	echo '#include <amber/format.h>'
	echo 'typedef void (*fn)(void);'
	echo 'fn amb_exported[] = {'
	sed 's/.*/	(fn)\&&,/' "$T/exported"
	echo '};'
} > "$T/exports.c"
if [ "$(wc -l < "$T/exported")" -lt 40 ] || [ "$(wc -l < "$T/internal")" -lt 10 ]; then
	fail install_exports "too few symbols to compare: $(wc -l < "$T/exported") exported, $(wc -l < "$T/internal") internal"
elif [ -n "$unmarked" ]; then
	fail install_exports "declared without AMB_API: $unmarked"
elif [ -n "$not_amb$extra$lacking$leaked" ]; then
	fail install_exports "$(printf 'not amb_*: %s; exported, not AMB_API in the headers: %s; AMB_API, not exported: %s; internal helpers exported: %s' \
		"$not_amb" "$extra" "$lacking" "$leaked" | tr '\n' ' ')"
elif ! cc -std=c99 -Wall -Werror -c -o "$T/exports.o" "$T/exports.c" \
	-I"$U/include" 2>"$T/exports.log"; then
	fail install_exports "exported but not declared in the headers: $(grep error "$T/exports.log" | head -3)"
else
	ok install_exports
fi

if "$U/bin/amber-analyze" --version >/dev/null 2>&1; then
	ok install_run
else
	fail install_run "installed amber-analyze does not run"
fi
finish

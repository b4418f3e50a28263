#!/bin/sh
# `make install` puts the tools, the format library and its headers under
# PREFIX, and a program outside the tree can build against them and read a
# recording.
. "$(dirname "$0")/lib.sh"

need_cmd install cc || finish
if ! make -C "$ROOT" --no-print-directory -s install B="$B" PREFIX="$T/usr" >"$T/install.log" 2>&1; then
	fail install "make install failed: $(tail -3 "$T/install.log")"
	finish
fi
for f in bin/amber-rec bin/amber-analyze lib/libamber-format.a include/amber/format.h \
	 include/amber/common.h; do
	[ -e "$T/usr/$f" ] || fail "install_$f" "missing after make install"
done
ok install_files

cat > "$T/reader.c" <<'C'
#include <stdio.h>
#include <amber/format.h>

int main(int argc, char **argv)
{
	struct amb_reader *r;
	int err = amb_reader_open(argv[1], 0, &r);

	if (err) {
		fprintf(stderr, "%s\n", amb_strerror(err));
		return 1;
	}
	printf("%zu blocks, format %u.%u\n", amb_reader_block_count(r),
	       amb_reader_header(r)->major, amb_reader_header(r)->minor);
	amb_reader_close(r);
	return argc > 2;
}
C
if cc -I"$T/usr/include" -o "$T/reader" "$T/reader.c" "$T/usr/lib/libamber-format.a" \
	$(pkg-config --libs libzstd libxxhash) -lpthread 2>"$T/cc.log"; then
	out=$("$T/reader" "$ROOT/testdata/valid/all_types.amber")
	case $out in
	*"blocks, format 1."*) ok install_link ;;
	*) fail install_link "unexpected output: $out" ;;
	esac
else
	fail install_link "a program using the installed header does not build: $(head -5 "$T/cc.log")"
fi
"$T/usr/bin/amber-analyze" --version >/dev/null 2>&1 && ok install_run || fail install_run "installed amber-analyze does not run"
finish

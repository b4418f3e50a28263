// SPDX-License-Identifier: MIT
/*
 * testdata/programs/cxxnames.cc - a program whose hot functions have
 * mangled names: C++ (a namespace function taking a std::string and its
 * overload taking a long alone, a member of a class template, a function
 * in an anonymous namespace, an operator()) and, through asm labels, the
 * two Rust manglings (legacy, with its hash, and v0).  Profilers should
 * show them as perf does: ns::work (two symbols, two rows),
 * ns::Box<long>::spin, ns::(anonymous namespace)::anon, Op::operator(),
 * mycrate::inner::spin, mycrate::tick.  See README.md.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

/* About 0.4 ms of CPU per call on a current x86-64 core: a dependent
 * chain of multiply-adds the compiler cannot fold. */
#define SPIN 400000L

static volatile uint64_t sink;

namespace ns {

template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T spin(long n) const
	{
		T s = v;

		for (long i = 0; i < n; i++)
			s = s * 3 + (T)i;
		return s;
	}
};

__attribute__((noinline)) long work(long x, const std::string &s)
{
	for (long i = 0; i < SPIN; i++)
		x = x * 7 + (long)s.size();
	return x;
}

/* The overload: half the work, so that its row has half the share. */
__attribute__((noinline)) long work(long x)
{
	for (long i = 0; i < SPIN / 2; i++)
		x = x * 11 + i;
	return x;
}

namespace {
__attribute__((noinline)) long anon(long x)
{
	for (long i = 0; i < SPIN; i++)
		x ^= x * 5 + 3;
	return x;
}
} // namespace

} // namespace ns

struct Op {
	__attribute__((noinline)) long operator()(long x) const
	{
		for (long i = 0; i < SPIN; i++)
			x += (x >> 3) ^ i;
		return x;
	}
};

/* Rust's names, legacy (mycrate::inner::spin, hash h0123456789abcdef) and
 * v0 (mycrate::tick), given to C++ functions. */
extern "C" long rust_legacy(long x) __asm__("_ZN7mycrate5inner4spin17h0123456789abcdefE");
extern "C" long rust_v0(long x) __asm__("_RNvCs1234_7mycrate4tick");

extern "C" __attribute__((noinline)) long rust_legacy(long x)
{
	for (long i = 0; i < SPIN; i++)
		x = x * 13 + (i & 7);
	return x;
}

extern "C" __attribute__((noinline)) long rust_v0(long x)
{
	for (long i = 0; i < SPIN; i++)
		x = (x ^ i) * 17;
	return x;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: cxxnames [--work N]\n"
		   "  --work N   rounds of the seven hot functions, about 0.4 ms of CPU each\n"
		   "             (ns::work(long) 0.2 ms; default 100)\n");
}

int main(int argc, char **argv)
{
	const std::string text("cxxnames");
	const ns::Box<long> box{3};
	const Op op{};
	long rounds = 100;
	uint64_t sum = 0;

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--work") && i + 1 < argc) {
			rounds = strtol(argv[++i], &end, 10);
			if (*end || end == argv[i] || rounds < 0 || rounds > 1000000) {
				fprintf(stderr, "cxxnames: bad --work '%s'\n", argv[i]);
				return 2;
			}
			continue;
		}
		fprintf(stderr, "cxxnames: unknown option '%s'\n", argv[i]);
		usage(stderr);
		return 2;
	}
	for (long r = 0; r < rounds; r++) {
		sum += (uint64_t)box.spin(SPIN);
		sum += (uint64_t)ns::work(r, text);
		sum += (uint64_t)ns::work(r);
		sum += (uint64_t)ns::anon(r);
		sum += (uint64_t)op(r);
		sum += (uint64_t)rust_legacy(r);
		sum += (uint64_t)rust_v0(r);
	}
	sink = sum;
	printf("cxxnames: checksum 0x%016llx\n", (unsigned long long)sum);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * fuzz_reader - the input is an .amber file: open it through the index and
 * by scanning, load every block, verify and salvage it.  Nothing may crash,
 * leak or allocate past the caps of FORMAT.md §7.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <amber/format.h>

static char salvage_out[64];

static void load_all(const char *path, unsigned flags, struct amb_payload *p)
{
	struct amb_block_filter f = AMB_FILTER_ANY;
	struct amb_reader *r;
	size_t i;

	if (amb_reader_open(path, flags, &r))
		return;
	amb_reader_for_each_block(r, &f, i) {
		const void *data;
		size_t len;

		if (amb_reader_load(r, i, p, &data, &len) == 0 && len) {
			/* Touch the payload: every byte must be readable. */
			volatile uint8_t sink = ((const uint8_t *)data)[len - 1];
			(void)sink;
		}
	}
	for (i = 0; i < amb_reader_problem_count(r); i++)
		(void)amb_reader_problem(r, i)->msg[0];
	amb_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct amb_payload *p;
	char path[64];
	int fd;

	fd = memfd_create("fuzz_reader", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	p = amb_payload_new();
	if (p) {
		load_all(path, 0, p);
		load_all(path, AMB_READ_SCAN | AMB_READ_VERIFY, p);
		amb_payload_free(p);
	}
	amb_verify(path, NULL, NULL, NULL);
	if (!salvage_out[0])
		snprintf(salvage_out, sizeof(salvage_out), "/dev/shm/fuzz_reader.%d.amber", getpid());
	unlink(salvage_out);
	amb_salvage(path, salvage_out);
	unlink(salvage_out);
	close(fd);
	return 0;
}

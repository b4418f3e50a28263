// SPDX-License-Identifier: MIT
/*
 * analyze/debuginfod.c - step 6 of the DSO search (symbols.h): fetch an
 * ELF or its debug info by build-id from the servers in $DEBUGINFOD_URLS.
 *
 * libdebuginfod is loaded with dlopen so that the analyzer runs where it
 * is not installed; its header gives the types only.  The client caches
 * what it downloads (~/.cache/debuginfod_client) and returns a path into
 * that cache.  A server is a stranger: dso.c checks the build-id of every
 * file it returns, like any other candidate.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/resolve/debuginfod.h"
#include "analyze/resolve/dso.h"
#include <amber/common.h>

struct ana_debuginfod {
	void *lib;                      /* dlopen handle */
	debuginfod_client *client;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_executable) *find_executable;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	struct timespec deadline;       /* the end of this run's budget */
	int budget;                     /* its length, s */
	bool stopped;                   /* no more queries in this run */
};

/*
 * The progress callback gets only the library's client: it finds our
 * deadline through the client's user data, with the library's getter.
 * Set before the first client exists; every client comes from the same
 * library, so later stores write the same value.
 */
static __typeof__(debuginfod_get_user_data) *get_user_data_fn;

/* Called by the library while a query runs (about once a second, and as
 * data comes): nonzero aborts it.  The DEBUGINFOD_TIMEOUT of the library
 * covers a silent server; this bounds a slow one by the run's budget. */
static int on_progress(debuginfod_client *client, long done, long total)
{
	__typeof__(debuginfod_get_user_data) *get = __atomic_load_n(&get_user_data_fn,
								    __ATOMIC_ACQUIRE);
	const struct timespec *deadline = get ? get(client) : NULL;
	struct timespec now;

	(void)done;
	(void)total;
	if (!deadline || clock_gettime(CLOCK_MONOTONIC, &now))
		return 0;
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* dlsym @name from @lib into *@fn; false (with a warning) when missing. */
static bool sym(void *lib, const char *name, void *fn)
{
	void *p = dlsym(lib, name);

	if (!p) {
		amb_warn("%s: no symbol %s: debuginfod is not used", DEBUGINFOD_SONAME, name);
		return false;
	}
	memcpy(fn, &p, sizeof(p));
	return true;
}

struct ana_debuginfod *ana_debuginfod_new(void)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_get_user_data) *get;
	struct ana_debuginfod *c;
	char timeout[16];

	if (!urls || !*urls) {
		errno = ENOENT;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	/* NODELETE: libcurl, under libdebuginfod, keeps global state that
	 * must not be unmapped while a later client may load it again. */
	c->lib = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!c->lib) {
		amb_warn("DEBUGINFOD_URLS is set, but %s cannot be loaded (%s): debuginfod is not used",
			 DEBUGINFOD_SONAME, dlerror());
		goto fail;
	}
	if (!sym(c->lib, "debuginfod_begin", &begin) || !sym(c->lib, "debuginfod_end", &c->end) ||
	    !sym(c->lib, "debuginfod_find_executable", &c->find_executable) ||
	    !sym(c->lib, "debuginfod_find_debuginfo", &c->find_debuginfo) ||
	    !sym(c->lib, "debuginfod_set_progressfn", &set_progressfn) ||
	    !sym(c->lib, "debuginfod_set_user_data", &c->set_user_data) ||
	    !sym(c->lib, "debuginfod_get_user_data", &get))
		goto fail;
	/* The library's default waits 90 s for a silent server, per query.
	 * An explicit setting of the user's wins. */
	snprintf(timeout, sizeof(timeout), "%d", ANA_DEBUGINFOD_TIMEOUT);
	setenv(DEBUGINFOD_TIMEOUT_ENV_VAR, timeout, 0);
	__atomic_store_n(&get_user_data_fn, get, __ATOMIC_RELEASE);
	c->client = begin();
	if (!c->client) {
		amb_warn("debuginfod: cannot create a client: %s: debuginfod is not used",
			 strerror(errno));
		goto fail;
	}
	c->set_user_data(c->client, &c->deadline);
	set_progressfn(c->client, on_progress);
	/* One budget for the whole run, however many DSOs it asks for. */
	c->budget = ANA_DEBUGINFOD_TOTAL;
	if (getenv(ANA_DEBUGINFOD_BUDGET_ENV) && atoi(getenv(ANA_DEBUGINFOD_BUDGET_ENV)) > 0)
		c->budget = atoi(getenv(ANA_DEBUGINFOD_BUDGET_ENV));
	if (clock_gettime(CLOCK_MONOTONIC, &c->deadline))
		goto fail;
	c->deadline.tv_sec += c->budget;
	return c;
fail:
	ana_debuginfod_free(c);
	errno = ENOENT;
	return NULL;
}

void ana_debuginfod_free(struct ana_debuginfod *c)
{
	if (!c)
		return;
	if (c->client)
		c->end(c->client);
	if (c->lib)
		dlclose(c->lib);
	free(c);
}

/* Whether this run's budget is spent. */
static bool budget_spent(const struct ana_debuginfod *c)
{
	struct timespec now;

	if (clock_gettime(CLOCK_MONOTONIC, &now))
		return true;
	return now.tv_sec > c->deadline.tv_sec ||
	       (now.tv_sec == c->deadline.tv_sec && now.tv_nsec >= c->deadline.tv_nsec);
}

char *ana_debuginfod_find(struct ana_debuginfod *c, const uint8_t *build_id, size_t len,
			  bool debuginfo)
{
	char *path = NULL;
	int fd;

	/* Length 0 would make the library read @build_id as a hex string. */
	if (!c || c->stopped || !len || len > ANA_BUILD_ID_MAX)
		return NULL;
	if (budget_spent(c)) {
		c->stopped = true;
		amb_warn("debuginfod: the %d s this run may spend asking servers are spent; "
			 "not asked again (%s sets the budget)", c->budget, ANA_DEBUGINFOD_BUDGET_ENV);
		return NULL;
	}
	fd = (debuginfo ? c->find_debuginfo : c->find_executable)(c->client, build_id, (int)len,
								    &path);
	if (fd >= 0) {
		close(fd);
		return path;
	}
	free(path);
	/* A server that does not answer in time will not for the next DSO
	 * either: every later query would wait as long again. */
	if (fd == -ETIME || fd == -ETIMEDOUT) {
		c->stopped = true;
		amb_warn("debuginfod: no answer from %s in time (DEBUGINFOD_TIMEOUT); "
			 "not asked again during this run", getenv(DEBUGINFOD_URLS_ENV_VAR));
	} else if (budget_spent(c)) {
		c->stopped = true;
		amb_warn("debuginfod: the %d s this run may spend asking servers are spent; "
			 "not asked again (%s sets the budget)", c->budget, ANA_DEBUGINFOD_BUDGET_ENV);
	}
	return NULL;
}

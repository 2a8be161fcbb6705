// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdma_ha_mode.so - set the RDMA CM high-availability mode of every ID a
 * program creates, without changing the program.
 *
 *	RDMA_HA_MODE=align LD_PRELOAD=librdma_ha_mode.so ib_send_bw -R ...
 *
 * Wraps librdmacm's rdma_create_id() and rdma_create_ep(): after the real
 * call succeeds, the ID gets rdma_set_option(id, RDMA_OPTION_ID,
 * RDMA_OPTION_ID_HA_MODE, ...) with the mode named by RDMA_HA_MODE
 * (notify, ignore, align, fail-fast, migrate or a number).  IDs created for
 * incoming connections inherit the mode of their listener in the kernel.
 *
 * Environment:
 *	RDMA_HA_MODE		the mode; unset or empty: the shim does nothing
 *	RDMA_HA_MODE_STRICT=1	fail the creation (errno from the kernel) when
 *				the mode cannot be set, e.g. on a kernel
 *				without the rdma-ha series (ENOSYS); the
 *				default is a warning on stderr and an ID in the
 *				kernel's default mode
 *	RDMA_HA_MODE_VERBOSE=1	one line on stderr per ID
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

/* Added to the uapi option enum by the rdma-ha series; not in rdma-core 44 */
#ifndef RDMA_OPTION_ID_HA_MODE
#define RDMA_OPTION_ID_HA_MODE		4
#endif

typedef int (*hap_create_id_fn)(struct rdma_event_channel *,
				 struct rdma_cm_id **, void *,
				 enum rdma_port_space);
typedef int (*hap_create_ep_fn)(struct rdma_cm_id **, struct rdma_addrinfo *,
				struct ibv_pd *, struct ibv_qp_init_attr *);

#define ARRAY_SIZE(a)			(sizeof(a) / sizeof((a)[0]))

static const char *const hap_modes[] = {
	"notify", "ignore", "align", "fail-fast", "migrate", "report",
};

/* -1: not parsed yet, -2: no mode asked for, else the mode */
static int hap_mode = -1;
static int hap_strict, hap_verbose;

static int hap_parse(const char *s)
{
	unsigned int i;
	char *end;
	long v;

	for (i = 0; i < ARRAY_SIZE(hap_modes); i++)
		if (!strcmp(s, hap_modes[i]))
			return i;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || end == s || v < 0 || v > 255)
		return -1;
	return v;
}

static int hap_env_flag(const char *name)
{
	const char *s = getenv(name);

	return s && *s && strcmp(s, "0");
}

/* Racy only in that two threads may both parse the same environment. */
static int hap_get_mode(void)
{
	const char *s;
	int mode;

	if (hap_mode != -1)
		return hap_mode;
	hap_strict = hap_env_flag("RDMA_HA_MODE_STRICT");
	hap_verbose = hap_env_flag("RDMA_HA_MODE_VERBOSE");
	s = getenv("RDMA_HA_MODE");
	mode = -2;
	if (s && *s) {
		mode = hap_parse(s);
		if (mode < 0) {
			fprintf(stderr,
				"librdma_ha_mode: unknown RDMA_HA_MODE '%s', no mode set\n",
				s);
			mode = -2;
		}
	}
	hap_mode = mode;
	return mode;
}

static void *hap_next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		fprintf(stderr, "librdma_ha_mode: no %s after the shim: %s\n",
			name, dlerror());
	return f;
}

/* Returns 0, or -1 with errno set when the ID must not be used. */
static int hap_apply(struct rdma_cm_id *id)
{
	int mode = hap_get_mode(), err;
	uint8_t val;

	if (mode < 0)
		return 0;
	val = mode;
	if (!rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE,
			     &val, sizeof(val))) {
		if (hap_verbose)
			fprintf(stderr, "librdma_ha_mode: id %p mode %u\n",
				(void *)id, val);
		return 0;
	}
	err = errno;
	fprintf(stderr, "librdma_ha_mode: rdma_set_option(HA_MODE=%u): %s%s\n",
		val, strerror(err), hap_strict ? "" : " (ignored)");
	errno = err;
	return hap_strict ? -1 : 0;
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
		   void *context, enum rdma_port_space ps)
{
	static hap_create_id_fn next;
	int err;

	if (!next)
		next = (hap_create_id_fn)hap_next("rdma_create_id");
	if (!next) {
		errno = ENOENT;
		return -1;
	}
	if (next(channel, id, context, ps))
		return -1;
	if (hap_apply(*id)) {
		err = errno;
		rdma_destroy_id(*id);
		*id = NULL;
		errno = err;
		return -1;
	}
	return 0;
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
		   struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	static hap_create_ep_fn next;
	int err;

	if (!next)
		next = (hap_create_ep_fn)hap_next("rdma_create_ep");
	if (!next) {
		errno = ENOENT;
		return -1;
	}
	if (next(id, res, pd, qp_init_attr))
		return -1;
	if (hap_apply(*id)) {
		err = errno;
		rdma_destroy_ep(*id);
		*id = NULL;
		errno = err;
		return -1;
	}
	return 0;
}

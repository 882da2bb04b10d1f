// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The engine's life: create, Initialize (name, options, the memreg
 * context, the listener), Finalize, destroy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "adxl_int.h"

static void adxl_engine_destroy_bare(struct adxl_engine *e);

adxl_status_t adxl_engine_create(adxl_engine_t **out)
{
	struct adxl_engine *e;
	pthread_condattr_t ca;

	if (!out)
		return ADXL_PARAM_INVALID;
	e = calloc(1, sizeof(*e));
	if (!e)
		return ADXL_FAILED;
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->conn_lock, NULL);
	pthread_mutex_init(&e->transport_lock, NULL);
	pthread_rwlock_init(&e->reg_lock, NULL);
	pthread_mutex_init(&e->notify_lock, NULL);
	pthread_mutex_init(&e->async_lock, NULL);
	pthread_cond_init(&e->async_cond, NULL);
	pthread_mutex_init(&e->ca_lock, NULL);
	pthread_cond_init(&e->ca_cond, NULL);
	pthread_mutex_init(&e->pool_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->pool_cond, &ca);
	pthread_condattr_destroy(&ca);
	e->ca_tail = &e->ca_head;
	e->ntail = &e->nhead;
	e->listen_fd = -1;
	e->wake_fd = -1;
	e->proof_fd = -1;
	if (adxl__transports_init(e)) {
		adxl_engine_destroy_bare(e);
		return ADXL_FAILED;
	}
	*out = e;
	return ADXL_SUCCESS;
}

void adxl_engine_destroy(adxl_engine_t *e)
{
	if (!e)
		return;
	adxl_finalize(e);
	adxl__transports_fini(e);
	adxl_engine_destroy_bare(e);
}

/* What adxl_engine_create() made before its transports. */
static void adxl_engine_destroy_bare(struct adxl_engine *e)
{
	pthread_cond_destroy(&e->pool_cond);
	pthread_mutex_destroy(&e->pool_lock);
	pthread_cond_destroy(&e->ca_cond);
	pthread_mutex_destroy(&e->ca_lock);
	pthread_cond_destroy(&e->async_cond);
	pthread_mutex_destroy(&e->async_lock);
	pthread_mutex_destroy(&e->notify_lock);
	pthread_rwlock_destroy(&e->reg_lock);
	pthread_mutex_destroy(&e->transport_lock);
	pthread_mutex_destroy(&e->conn_lock);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

adxl_status_t adxl__ready(const struct adxl_engine *e, const char *op)
{
	if (e->initialised)
		return ADXL_SUCCESS;
	adxl__err("%s: the engine is not initialised", op);
	return ADXL_FAILED;
}

/* A decimal integer in [lo, hi], all of @s. */
static bool int_in(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!*s)
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* "adxl.X" and hixl's "X" are the same option. */
static bool key_is(const char *key, const char *name)
{
	if (!strncmp(key, "adxl.", 5))
		key += 5;
	return !strcmp(key, name);
}

/*
 * hixl's JSON options describe hardware (ranktables, channel pools) and
 * are ignored here, except that they must be JSON, as hixl refuses them
 * otherwise (PARAM_INVALID; GlobalResourceConfig must be an object), and
 * that they select hixl's client/server engine (docs/zh/api/cpp/
 * HIXL-interface.md, the batch GetTransferStatus): LocalCommRes of
 * version "1.3", or a comm_resource_config.protocol_desc with
 * "uboe:device" or "ub_rtp:device".  An empty value is no value.
 */
/*
 * GlobalResourceConfig's numbers and hixl's ranges for them
 * (src/hixl/engine/hixl_options.cc; the connect pool's are documented in
 * HIXL-interface.md): out of range is PARAM_INVALID, as there, though
 * nothing here uses them.
 */
static const struct {
	const char *key;
	long long lo, hi;
} global_ranges[] = {
	{ "connect_pool.thread_num", 1, 64 },
	{ "connect_pool.task_queue_capacity", 1, 65535 },
	{ "comm_resource_config.listen_port", 1, 65535 },
	{ "comm_resource_config.qos", 0, 7 },
	{ "comm_resource_config.max_active_channels", 1, UINT32_MAX },
	{ "fabric_memory.max_capacity", 1, 1024 },
	{ "fabric_memory.task_stream_num", 1, 8 },
};

static adxl_status_t check_ranges(const char *key, const char *val)
{
	long long v;
	size_t i;
	int st;

	for (i = 0; i < sizeof(global_ranges) / sizeof(global_ranges[0]); i++) {
		st = adxl__json_member_int(val, global_ranges[i].key, &v);
		if (st == 1)
			continue;
		if (st || v < global_ranges[i].lo || v > global_ranges[i].hi) {
			adxl__err("Initialize: option %s: %s must be an integer in [%lld, %lld]",
				  key, global_ranges[i].key,
				  global_ranges[i].lo, global_ranges[i].hi);
			return ADXL_PARAM_INVALID;
		}
	}
	return ADXL_SUCCESS;
}

static adxl_status_t json_option(struct adxl_engine *e, const char *key,
				 const char *val)
{
	static const char desc[] = "comm_resource_config.protocol_desc";
	bool object;

	if (!*val)
		return ADXL_SUCCESS;
	if (adxl__json_check(val, &object)) {
		adxl__err("Initialize: option %s is not JSON", key);
		return ADXL_PARAM_INVALID;
	}
	if (key_is(key, "LocalCommRes")) {
		if (adxl__json_member_has(val, "version", "1.3"))
			e->hixl_cs = true;
		return ADXL_SUCCESS;
	}
	if (!object) {
		adxl__err("Initialize: option %s is not a JSON object", key);
		return ADXL_PARAM_INVALID;
	}
	if (check_ranges(key, val))
		return ADXL_PARAM_INVALID;
	if (adxl__json_member_has(val, desc, "uboe:device") ||
	    adxl__json_member_has(val, desc, "ub_rtp:device"))
		e->hixl_cs = true;
	return ADXL_SUCCESS;
}

/*
 * One option into @e.  A refusal that is not just a bad value (an unknown
 * key, JSON, a range) says why itself and sets *@said.
 */
static adxl_status_t parse_option(struct adxl_engine *e, const char *key,
				  const char *val, bool *said)
{
	long a, b;
	int st;

	if (key_is(key, "BufferPool")) {
		/*
		 * "$BUFFER_NUM:$BUFFER_SIZE_MB", both > 0, or "0:0" (none):
		 * the buffers through which memory not registered is staged
		 * (pool.c).
		 */
		const char *colon = strchr(val, ':');
		char num[32];

		if (!colon || (size_t)(colon - val) >= sizeof(num))
			return ADXL_PARAM_INVALID;
		memcpy(num, val, (size_t)(colon - val));
		num[colon - val] = '\0';
		if (!int_in(num, 0, 1 << 20, &a) ||
		    !int_in(colon + 1, 0, 1 << 20, &b) || (!a != !b))
			return ADXL_PARAM_INVALID;
		e->pool_n = (size_t)a;
		e->pool_buf = (size_t)b << 20;
		return ADXL_SUCCESS;
	}
	if (key_is(key, "AutoConnect")) {
		if (strcmp(val, "0") && strcmp(val, "1"))
			return ADXL_PARAM_INVALID;
		e->auto_connect = val[0] == '1';
		return ADXL_SUCCESS;
	}
	if (key_is(key, "Transport")) {
		/* auto, or the name of a row of the table (transport.c) */
		if (strcmp(val, "auto")) {
			e->transport = adxl__transport_named(val);
			if (!e->transport)
				return ADXL_PARAM_INVALID;
		} else {
			e->transport = NULL;
		}
		return ADXL_SUCCESS;
	}
	if (key_is(key, "AllowPeers")) {
		struct adxl_allow *a;

		if (adxl__allow_parse(val, &a))
			return ADXL_PARAM_INVALID;
		adxl__allow_free(e->allow);
		e->allow = a;
		return ADXL_SUCCESS;
	}
	if (key_is(key, "LocalCommRes") || key_is(key, "GlobalResourceConfig")) {
		*said = true;
		return json_option(e, key, val);
	}
	if (key_is(key, "EnableUseFabricMem"))
		return ADXL_SUCCESS;	/* hardware topology: nothing to do */
	/* One of a transport's own options (transport.h)? */
	st = adxl__transports_option(e, strncmp(key, "adxl.", 5) ? key : key + 5,
				     val);
	if (st != 1)
		return (adxl_status_t)st;
	/*
	 * hixl's engines refuse a key they do not know (CommEngine's
	 * supported options; its docs only list them): a misspelt option is
	 * an error the caller sees, not a default it did not ask for.
	 */
	adxl__err("Initialize: unknown option \"%s\"", key);
	*said = true;
	return ADXL_PARAM_INVALID;
}

/*
 * The hosts this engine serves (trust.c), for programs that cannot pass
 * the option: MEMREG_ADXL_ALLOW_PEERS; the option AllowPeers replaces it.
 */
static adxl_status_t allow_from_env(struct adxl_engine *e)
{
	const char *env = getenv("MEMREG_ADXL_ALLOW_PEERS");

	e->allow = NULL;
	if (!env || !*env)
		return ADXL_SUCCESS;
	if (adxl__allow_parse(env, &e->allow)) {
		adxl__err("Initialize: MEMREG_ADXL_ALLOW_PEERS=\"%s\" is not a list of addresses, address/prefix or *",
			  env);
		return ADXL_PARAM_INVALID;
	}
	return ADXL_SUCCESS;
}

/*
 * The name and the options into @e (not running): ADXL_SUCCESS, or
 * ADXL_PARAM_INVALID (logged) with nothing of them kept.
 */
static adxl_status_t configure(struct adxl_engine *e, const char *local_engine,
			       const struct adxl_option *options,
			       size_t n_options)
{
	adxl_status_t st;
	size_t i;

	if (strlen(local_engine) > ADXL_NAME_MAX ||
	    adxl__parse_name(local_engine, &e->addr)) {
		adxl__err("Initialize: \"%s\" is not ip, ip:port, [ipv6] or [ipv6]:port",
			  local_engine);
		return ADXL_PARAM_INVALID;
	}
	e->auto_connect = false;
	e->hixl_cs = false;
	/* BufferPool's default, as hixl: 4 buffers of 8 MiB */
	e->pool_n = 4;
	e->pool_buf = (size_t)8 << 20;
	e->transport = NULL;
	adxl__transports_option(e, NULL, NULL);
	st = allow_from_env(e);
	if (st)
		return st;
	for (i = 0; i < n_options; i++) {
		bool said = false;

		if (!options[i].key || !options[i].value)
			st = ADXL_PARAM_INVALID;
		else
			st = parse_option(e, options[i].key, options[i].value,
					  &said);
		if (st) {
			if (options[i].key && options[i].value && !said)
				adxl__err("Initialize: bad value \"%s\" for option %s",
					  options[i].value, options[i].key);
			adxl__allow_free(e->allow);
			e->allow = NULL;
			return st;
		}
	}
	return ADXL_SUCCESS;
}

/*
 * Initialize on an engine that runs: its name and options are checked
 * first, on an engine of their own (the running one keeps its own), as
 * hixl parses them before anything else (PARAM_INVALID); good ones are
 * FAILED, already initialised.
 */
static adxl_status_t initialize_again(struct adxl_engine *e,
				      const char *local_engine,
				      const struct adxl_option *options,
				      size_t n_options)
{
	struct adxl_engine *scratch;
	adxl_status_t st;

	if (adxl_engine_create(&scratch))
		return ADXL_FAILED;
	st = configure(scratch, local_engine, options, n_options);
	if (!st) {
		adxl__allow_free(scratch->allow);
		scratch->allow = NULL;
	}
	adxl_engine_destroy(scratch);
	if (st)
		return st;
	adxl__err("Initialize: already initialised as %s; Finalize first",
		  e->name);
	return ADXL_FAILED;
}

adxl_status_t adxl_initialize(adxl_engine_t *e, const char *local_engine,
			      const struct adxl_option *options,
			      size_t n_options)
{
	struct memreg_lib_info info;
	adxl_status_t st;
	int err;

	if (!e || !local_engine || (n_options && !options))
		return ADXL_PARAM_INVALID;
	if (e->initialised)
		return initialize_again(e, local_engine, options, n_options);
	st = configure(e, local_engine, options, n_options);
	if (st)
		return st;

	err = memreg_open(&e->ctx);
	if (err) {
		adxl__err("Initialize: %s", memreg_strerror(err));
		return ADXL_FAILED;
	}
	err = memreg_info(e->ctx, &info);
	if (!err && !(info.features & MEMREG_FEATURE_TRANSFER))
		adxl__warn("Initialize: the memreg module has no transfers; peers cannot reach this engine's memory");
	if (err) {
		adxl__err("Initialize: %s", memreg_strerror(err));
		goto err_close;
	}
	memcpy(e->ident.instance_id, info.instance_id,
	       sizeof(e->ident.instance_id));
	e->ident.incarnation = info.incarnation;
	e->ident.start_time = info.start_time;
	/* this Initialize's own: a second one is another engine to peers */
	if (getrandom(&e->ident.epoch, sizeof(e->ident.epoch), 0) !=
	    sizeof(e->ident.epoch))
		e->ident.epoch = (uint64_t)adxl__now_ms() ^
				 ((uint64_t)getpid() << 32);
	e->name = strdup(local_engine);
	if (!e->name)
		goto err_close;

	/* on this thread, before ours start (plugged.c: preload) */
	adxl__transports_preload(e);
	if (e->addr.port > 0) {
		st = adxl__server_start(e);
		if (st) {
			free(e->name);
			e->name = NULL;
			memreg_close(e->ctx);
			e->ctx = NULL;
			adxl__allow_free(e->allow);
			e->allow = NULL;
			return st;
		}
	}
	e->initialised = true;
	return ADXL_SUCCESS;

err_close:
	memreg_close(e->ctx);
	e->ctx = NULL;
	adxl__allow_free(e->allow);
	e->allow = NULL;
	return ADXL_FAILED;
}

void adxl_finalize(adxl_engine_t *e)
{
	if (!e || !e->initialised)
		return;
	/* Users first (the workers, peers), then what they used. */
	adxl__conn_async_stop(e);
	adxl__async_stop(e);
	adxl__server_stop(e);
	adxl__peers_drop_all(e);
	adxl__notify_drop_all(e);
	adxl__regs_drop_all(e);
	adxl__pool_stop(e);
	adxl__transports_stop(e);
	memreg_close(e->ctx);
	e->ctx = NULL;
	free(e->name);
	e->name = NULL;
	adxl__allow_free(e->allow);
	e->allow = NULL;
	e->initialised = false;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Command-line parsing, in the manner of iproute2: objects, commands and
 * keywords may be abbreviated to any prefix, the first match in the order
 * of the tables below winning ("s" is "show", never "set").
 */
#include <errno.h>
#include <string.h>

#include "args.h"
#include "fmt.h"

void args_usage(FILE *f)
{
	fputs("Usage: memreg [OPTIONS] OBJECT [COMMAND] [ARGS]\n"
	      "       memreg stats [show]\n"
	      "       memreg proc [show] [[pid] PID]\n"
	      "       memreg region [show] [[pid] PID]\n"
	      "       memreg heap [show] [[pid] PID]\n"
	      "       memreg dev [show] [[dev] N]\n"
	      "       memreg limits [show] [[pid] PID]\n"
	      "       memreg limits set [pid PID | --all] [regions N] [host SIZE] [dev SIZE]\n"
	      "       memreg limits [show] cgroup PATH\n"
	      "       memreg limits set cgroup PATH [host SIZE] [dev SIZE] [dmabuf SIZE]\n"
	      "       memreg headroom [pid PID | cgroup PATH] [dev N]\n"
	      "       memreg monitor\n"
	      "       memreg help\n"
	      "       memreg OBJECT help\n"
	      "OPTIONS: -j, --json     JSON output\n"
	      "         -p, --pretty   indented JSON output (implies -j)\n"
	      "         -h, --help     this help\n"
	      "         -V, --version  version\n"
	      "SIZE: bytes, or with a K, M, G, T, P or E suffix (KiB, MiB, ... EiB\n"
	      "      also; 1G = 1024^3), or unlimited.  N: a number or unlimited.\n"
	      "limits set without pid sets the defaults of every process that has no\n"
	      "      limits of its own; a default of 0 refuses all their registrations\n"
	      "      and needs --all.\n",
	      f);
}

/* @arg is a non-empty prefix of @word. */
static bool matches(const char *arg, const char *word)
{
	size_t n = strlen(arg);

	return n && n <= strlen(word) && !strncmp(arg, word, n);
}

/* Something the tool does not know: show what it does know. */
static int usage_error(FILE *err)
{
	args_usage(err);
	return EXIT_USAGE;
}

/* A known keyword with a bad value: the message said it all. */
static int value_error(FILE *err)
{
	fputs("Run \"memreg help\" for usage.\n", err);
	return EXIT_USAGE;
}

static int parse_options(struct memreg_args *a, int argc, char **argv,
			 int *i, FILE *err)
{
	for (; *i < argc; (*i)++) {
		const char *s = argv[*i];

		if (s[0] != '-' || !s[1])
			break;
		if (!strcmp(s, "--")) {
			(*i)++;
			break;
		}
		if (s[1] == '-') {
			if (!strcmp(s, "--json"))
				a->json = true;
			else if (!strcmp(s, "--pretty"))
				a->pretty = true;
			else if (!strcmp(s, "--help"))
				a->help = true;
			else if (!strcmp(s, "--version"))
				a->version = true;
			else
				goto unknown;
			continue;
		}
		/* bundled short options: -jp */
		for (s++; *s; s++) {
			switch (*s) {
			case 'j':
				a->json = true;
				break;
			case 'p':
				a->pretty = true;
				break;
			case 'h':
				a->help = true;
				break;
			case 'V':
				a->version = true;
				break;
			default:
				goto unknown;
			}
		}
	}
	if (a->pretty)
		a->json = true;
	return 0;

unknown:
	fprintf(err, "memreg: unknown option \"%s\"\n", argv[*i]);
	return usage_error(err);
}

/* The value after keyword argv[*i]; NULL (with a message) if none. */
static const char *keyword_value(int argc, char **argv, int *i, FILE *err)
{
	if (*i + 1 >= argc) {
		fprintf(err, "memreg: \"%s\" needs a value\n", argv[*i]);
		return NULL;
	}
	return argv[++(*i)];
}

static int parse_device(struct memreg_args *a, const char *s, FILE *err)
{
	if (a->has_device) {
		fprintf(err, "memreg: dev given twice\n");
		return EXIT_USAGE;
	}
	if (parse_u32(s, &a->device)) {
		fprintf(err, "memreg: invalid device id \"%s\"\n", s);
		return EXIT_USAGE;
	}
	a->has_device = true;
	return 0;
}

static int parse_pid(struct memreg_args *a, const char *s, FILE *err)
{
	if (a->has_pid) {
		fprintf(err, "memreg: pid given twice\n");
		return EXIT_USAGE;
	}
	if (parse_u32(s, &a->pid) || a->pid == 0 || a->pid > INT32_MAX) {
		fprintf(err, "memreg: invalid pid \"%s\"\n", s);
		return EXIT_USAGE;
	}
	a->has_pid = true;
	return 0;
}

/* A "limits set" value; @what names it in messages. */
static int parse_limit(struct memreg_args *a, unsigned int bit,
		       const char *what, const char *s, FILE *err)
{
	uint64_t *dst;
	int ret;

	if (a->set & bit) {
		fprintf(err, "memreg: %s given twice\n", what);
		return EXIT_USAGE;
	}
	if (bit == SET_REGIONS) {
		dst = &a->max_regions;
		ret = parse_count(s, dst);
	} else {
		dst = bit == SET_HOST ? &a->max_host_bytes :
		      bit == SET_DEV ? &a->max_dev_bytes :
		      &a->max_dmabuf_bytes;
		ret = parse_size(s, dst);
	}
	if (ret == -ERANGE) {
		fprintf(err, "memreg: %s \"%s\" is too large\n", what, s);
		return EXIT_USAGE;
	}
	if (ret) {
		if (bit == SET_REGIONS)
			fprintf(err, "memreg: invalid %s \"%s\" (a number or unlimited)\n",
				what, s);
		else
			fprintf(err, "memreg: invalid %s size \"%s\" (bytes, K/M/G/T/P/E suffix, or unlimited)\n",
				what, s);
		return EXIT_USAGE;
	}
	a->set |= bit;
	return 0;
}

/*
 * A bare value where a keyword would be: the value of the one filter the
 * object has, as "ip link show eth0" is "ip link show dev eth0".  Only
 * numbers, so that a misspelt keyword is still an unknown argument.
 */
static bool is_bare_value(const char *s)
{
	return *s >= '0' && *s <= '9';
}

/*
 * Keywords after the command.  @set_keywords: regions/host/dev/--all and
 * pid, for "limits set"; otherwise the object's filter, pid (or, for
 * "dev", dev), with or without its keyword.
 */
static int parse_keywords(struct memreg_args *a, int argc, char **argv,
			  int i, bool set_keywords, FILE *err)
{
	for (; i < argc; i++) {
		const char *kw = argv[i], *val;
		int ret;

		if (!set_keywords && is_bare_value(kw)) {
			ret = a->object == OBJ_DEV ? parse_device(a, kw, err)
						   : parse_pid(a, kw, err);
		} else if ((a->object == OBJ_LIMITS ||
			    a->object == OBJ_HEADROOM) &&
			   matches(kw, "cgroup")) {
			val = keyword_value(argc, argv, &i, err);
			if (val && a->cgroup) {
				fprintf(err, "memreg: cgroup given twice\n");
				val = NULL;
			}
			a->cgroup = val;
			ret = val ? 0 : EXIT_USAGE;
		} else if (a->object == OBJ_HEADROOM && matches(kw, "dev")) {
			val = keyword_value(argc, argv, &i, err);
			ret = val ? parse_device(a, val, err) : EXIT_USAGE;
		} else if (a->object == OBJ_DEV) {
			if (!matches(kw, "dev")) {
				fprintf(err, "memreg: unknown argument \"%s\"\n",
					kw);
				return usage_error(err);
			}
			val = keyword_value(argc, argv, &i, err);
			ret = val ? parse_device(a, val, err) : EXIT_USAGE;
		} else if (matches(kw, "pid")) {
			val = keyword_value(argc, argv, &i, err);
			ret = val ? parse_pid(a, val, err) : EXIT_USAGE;
		} else if (set_keywords && !strcmp(kw, "--all")) {
			a->all = true;
			ret = 0;
		} else if (set_keywords && matches(kw, "regions")) {
			val = keyword_value(argc, argv, &i, err);
			ret = val ? parse_limit(a, SET_REGIONS, "regions", val,
						err) : EXIT_USAGE;
		} else if (set_keywords && matches(kw, "host")) {
			val = keyword_value(argc, argv, &i, err);
			ret = val ? parse_limit(a, SET_HOST, "host", val, err)
				  : EXIT_USAGE;
		} else if (set_keywords && matches(kw, "dev")) {
			val = keyword_value(argc, argv, &i, err);
			ret = val ? parse_limit(a, SET_DEV, "dev", val, err)
				  : EXIT_USAGE;
		} else if (set_keywords && matches(kw, "dmabuf")) {
			val = keyword_value(argc, argv, &i, err);
			ret = val ? parse_limit(a, SET_DMABUF, "dmabuf", val,
						err) : EXIT_USAGE;
		} else {
			fprintf(err, "memreg: unknown argument \"%s\"\n", kw);
			return usage_error(err);
		}
		if (ret)
			return value_error(err);
	}
	return 0;
}

/*
 * "limits set" without pid changes the defaults of every process on the
 * host that has no limits of its own, the running ones included.  A
 * default of 0 refuses every registration of all of them; a script that
 * lost its pid variable would do it silently, so it must be asked for by
 * name.  A value of 1 or more lets some registration through and needs
 * nothing more.
 */
static int check_limits_set(struct memreg_args *a, FILE *err)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} limits[] = {
		{ SET_REGIONS, "regions" },
		{ SET_HOST, "host" },
		{ SET_DEV, "dev" },
	};
	const uint64_t *values[] = {
		&a->max_regions, &a->max_host_bytes, &a->max_dev_bytes,
	};
	size_t k;

	if (!a->set) {
		fprintf(err, "memreg: limits set needs at least one of regions, host, dev\n");
		return value_error(err);
	}
	if (a->all && a->has_pid) {
		fprintf(err, "memreg: --all is for the host-wide defaults; it does not go with pid\n");
		return value_error(err);
	}
	if (a->has_pid || a->all)
		return 0;
	for (k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
		if (!(a->set & limits[k].bit) || *values[k])
			continue;
		fprintf(err, "memreg: limits set %s 0 without pid refuses every registration of every process on the host; add --all if that is what you want\n",
			limits[k].name);
		return value_error(err);
	}
	return 0;
}

/* A cgroup's limits: no pid, no regions, no --all; set names one. */
static int check_cgroup_limits(struct memreg_args *a, FILE *err)
{
	if (a->has_pid || a->all || (a->set & SET_REGIONS)) {
		fprintf(err, "memreg: a cgroup has host, dev and dmabuf limits; pid, regions and --all do not go with it\n");
		return usage_error(err);
	}
	if (a->action == ACT_SET && !a->set) {
		fprintf(err, "memreg: limits set cgroup needs at least one of host, dev, dmabuf\n");
		return usage_error(err);
	}
	return 0;
}

static const struct {
	const char *name;
	enum memreg_object object;
} objects[] = {
	{ "stats", OBJ_STATS },
	{ "proc", OBJ_PROC },
	{ "region", OBJ_REGION },
	{ "limits", OBJ_LIMITS },
	{ "monitor", OBJ_MONITOR },
	{ "heap", OBJ_HEAP },
	{ "dev", OBJ_DEV },
	{ "headroom", OBJ_HEADROOM },
};

int args_parse(struct memreg_args *a, int argc, char **argv, FILE *err)
{
	const char *obj, *cmd;
	size_t k;
	int i = 1, ret;

	memset(a, 0, sizeof(*a));
	ret = parse_options(a, argc, argv, &i, err);
	if (ret || a->help || a->version)
		return ret;
	if (i >= argc) {
		fprintf(err, "memreg: no object given\n");
		return usage_error(err);
	}

	obj = argv[i++];
	if (matches(obj, "help")) {
		a->help = true;
		return 0;
	}
	for (k = 0; k < sizeof(objects) / sizeof(objects[0]); k++) {
		if (matches(obj, objects[k].name)) {
			a->object = objects[k].object;
			break;
		}
	}
	if (a->object == OBJ_NONE) {
		fprintf(err, "memreg: unknown object \"%s\"\n", obj);
		return usage_error(err);
	}

	/* the command, if there is one: "show" unless said otherwise */
	cmd = i < argc ? argv[i] : NULL;
	a->action = ACT_SHOW;
	if (cmd && matches(cmd, "help")) {
		a->help = true;
		return 0;
	}
	if (cmd && matches(cmd, "show")) {
		i++;
	} else if (cmd && a->object == OBJ_LIMITS && matches(cmd, "set")) {
		a->action = ACT_SET;
		i++;
	} else if (cmd && (a->object == OBJ_STATS ||
			   a->object == OBJ_MONITOR ||
			   (!is_bare_value(cmd) &&
			    !matches(cmd, a->object == OBJ_DEV ? "dev" : "pid") &&
			    !((a->object == OBJ_LIMITS ||
			       a->object == OBJ_HEADROOM) &&
			      matches(cmd, "cgroup")) &&
			    !(a->object == OBJ_HEADROOM && matches(cmd, "dev"))))) {
		fprintf(err, "memreg: unknown command \"%s\" for %s\n", cmd,
			objects[k].name);
		return usage_error(err);
	}

	switch (a->object) {
	case OBJ_STATS:
	case OBJ_MONITOR:
		if (i < argc) {
			fprintf(err, "memreg: unexpected argument \"%s\"\n",
				argv[i]);
			return usage_error(err);
		}
		return 0;
	case OBJ_LIMITS:
		ret = parse_keywords(a, argc, argv, i, a->action == ACT_SET,
				     err);
		if (ret)
			return ret;
		if (a->cgroup)
			return check_cgroup_limits(a, err);
		return a->action == ACT_SET ? check_limits_set(a, err) : 0;
	case OBJ_HEADROOM:
		ret = parse_keywords(a, argc, argv, i, false, err);
		if (!ret && a->cgroup && a->has_pid) {
			fprintf(err, "memreg: headroom of a process or of a cgroup, not both\n");
			return usage_error(err);
		}
		return ret;
	default:
		return parse_keywords(a, argc, argv, i, false, err);
	}
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The small calls: half-precision conversion, element sizes, versions,
 * the SoC name, timeouts and the floating-point overflow mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

#include "device.h"
#include "errors.h"
#include "event.h"
#include "runtime.h"
#include "stream.h"

#ifndef MEMREG_VERSION
#define MEMREG_VERSION	"0.0.0"	/* lib/Makefile passes the library's */
#endif

/* The chips with only the saturation mode: never Inf or NaN, but the largest. */
#define HALF_MAX	0x7bffU
#define HALF_SIGN	0x8000U

aclFloat16 aclFloatToFloat16(float value)
{
	uint32_t x, man, rem, half, h;
	int exp, shift;
	uint16_t sign;

	memcpy(&x, &value, sizeof(x));
	sign = (uint16_t)((x >> 16) & HALF_SIGN);
	exp = (int)((x >> 23) & 0xff);
	man = x & 0x7fffff;

	if (exp == 0xff)	/* NaN (any sign) and +Inf: 65504; -Inf: -65504 */
		return (aclFloat16)(man ? HALF_MAX : (sign | HALF_MAX));
	exp = exp - 127 + 15;	/* the half's biased exponent */
	if (exp >= 31)
		return (aclFloat16)(sign | HALF_MAX);
	if (exp <= 0) {
		/*
		 * A half subnormal, in units of 2^-24.  Below 2^-25 all is
		 * lost (2^-25 itself is a tie, which goes to the even 0).
		 */
		if (exp < -10)
			return sign;
		man |= 0x800000;
		shift = 14 - exp;
		h = man >> shift;
		rem = man & ((1U << shift) - 1);
		half = 1U << (shift - 1);
		/* Rounding up to 0x400 gives the smallest normal: right. */
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (aclFloat16)(sign | h);
	}
	h = ((uint32_t)exp << 10) | (man >> 13);
	rem = man & 0x1fff;
	/* To nearest, ties to even; a carry moves into the exponent. */
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	if (h >= 0x7c00)	/* rounded past 65504 */
		return (aclFloat16)(sign | HALF_MAX);
	return (aclFloat16)(sign | h);
}

float aclFloat16ToFloat(aclFloat16 value)
{
	uint32_t sign = ((uint32_t)value & HALF_SIGN) << 16;
	uint32_t exp = (value >> 10) & 0x1f;
	uint32_t man = value & 0x3ff;
	uint32_t x;
	float f;

	if (!exp) {
		/* Zero or subnormal: man * 2^-24, exact in a float. */
		f = (float)man * (1.0f / 16777216.0f);
		return sign ? -f : f;
	}
	/*
	 * As CANN: exponent 31 is read as any other, so 0x7c00 (Inf) is
	 * 65536 and 0x7e00 (a NaN) is 98304.
	 */
	x = sign | ((exp + 127 - 15) << 23) | (man << 13);
	memcpy(&f, &x, sizeof(f));
	return f;
}

size_t aclDataTypeSize(aclDataType dataType)
{
	switch (dataType) {
	case ACL_STRING:
	case ACL_DT_UNDEFINED:
		return 0;
	case ACL_BOOL:
	case ACL_INT8:
	case ACL_UINT8:
	case ACL_UINT1:		/* below a byte: CANN counts a byte */
	case ACL_INT4:
	case ACL_HIFLOAT8:
	case ACL_FLOAT8_E5M2:
	case ACL_FLOAT8_E4M3FN:
	case ACL_FLOAT8_E8M0:
		return 1;
	case ACL_FLOAT16:
	case ACL_BF16:
	case ACL_INT16:
	case ACL_UINT16:
		return 2;
	case ACL_FLOAT:
	case ACL_INT32:
	case ACL_UINT32:
	case ACL_COMPLEX32:
		return 4;
	case ACL_COMPLEX128:
		return 16;
	default:
		/* INT64, UINT64, DOUBLE, COMPLEX64, and (as CANN) the rest. */
		return 8;
	}
}

/*
 * The emulated devices present themselves as this SoC, so that build
 * scripts that ask (the samples' set_sample_env.sh) get a name; override
 * with MEMREG_ACL_SOC_NAME.  No aclInit needed, as in CANN.
 */
const char *aclrtGetSocName(void)
{
	const char *env = getenv("MEMREG_ACL_SOC_NAME");

	return env && *env ? env : "Ascend910B1";
}

/*
 * The packages memreg stands for ("runtime", the whole "cann") carry
 * libmemreg's version; CANN's other packages (driver, firmware, opp...)
 * are not installed.
 */
static const char *pkg_version(const char *pkg)
{
	if (!pkg || (strcmp(pkg, "runtime") && strcmp(pkg, "cann")))
		return NULL;
	return MEMREG_VERSION;
}

aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
	const char *v = pkg_version(pkgName);

	if (!versionStr)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"versionStr is NULL"));
	if (!v)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"pkgName %s: only \"runtime\" and \"cann\" are installed",
					pkgName ? pkgName : "NULL"));
	snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%s", v);
	return acl_ret(ACL_SUCCESS);
}

/*
 * A.B.C as A * 1000000 + B * 10000 + C * 100 + 99: a release sorts
 * after any pre-release of it (which would get less than 99), as CANN
 * orders them.
 */
aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
	const char *v = pkg_version(pkgName);
	unsigned int a = 0, b = 0, c = 0;

	if (!versionNum)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"versionNum is NULL"));
	if (!v)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"pkgName %s: only \"runtime\" and \"cann\" are installed",
					pkgName ? pkgName : "NULL"));
	if (sscanf(v, "%u.%u.%u", &a, &b, &c) < 1 || a > 2000 || b > 99 ||
	    c > 99)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"version %s does not fit CANN's numbering",
					v));
	*versionNum = (int32_t)(a * 1000000 + b * 10000 + c * 100 + 99);
	return acl_ret(ACL_SUCCESS);
}

/* aclrtStreamWaitEvent's limit (event.c); seconds, 0 for none. */
extern uint32_t memreg__acl_op_wait_timeout;

aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
	__atomic_store_n(&memreg__acl_op_wait_timeout, timeout, __ATOMIC_RELAXED);
	return acl_ret(ACL_SUCCESS);
}

/*
 * The limit on an operator's run on the device.  memreg runs no
 * operator, so it is kept and nothing reads it.
 */
static uint32_t op_execute_timeout;

aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
	__atomic_store_n(&op_execute_timeout, timeout, __ATOMIC_RELAXED);
	return acl_ret(ACL_SUCCESS);
}

/*
 * The overflow mode is the current device's; the default, as on the
 * recent chips, is INF/NaN.  Nothing computes on an emulated device, so
 * the mode only reads back, and the overflow status is always clear.
 */
static aclrtFloatOverflowMode sat_mode[256];	/* 0 is SATURATION: see get */
static bool sat_mode_set[256];

static aclError current_device(int32_t *dev)
{
	struct acl_context *ctx = memreg__acl_lock_context();

	if (!ctx)
		return ACL_ERROR_RT_CONTEXT_NULL;
	*dev = ctx->device;
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	if (*dev < 0 || *dev >= 256)
		return acl_fail(ACL_ERROR_RT_INVALID_DEVICEID,
				"device %d: the overflow mode is kept for devices 0..255",
				*dev);
	return ACL_SUCCESS;
}

aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
	aclError ret;
	int32_t dev;

	if (mode != ACL_RT_OVERFLOW_MODE_SATURATION &&
	    mode != ACL_RT_OVERFLOW_MODE_INFNAN)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"mode %d: ACL_RT_OVERFLOW_MODE_SATURATION or _INFNAN",
					(int)mode));
	ret = current_device(&dev);
	if (ret)
		return acl_ret(ret);
	__atomic_store_n(&sat_mode[dev], mode, __ATOMIC_RELAXED);
	__atomic_store_n(&sat_mode_set[dev], true, __ATOMIC_RELEASE);
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
	aclError ret;
	int32_t dev;

	if (!mode)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"mode is NULL"));
	ret = current_device(&dev);
	if (ret)
		return acl_ret(ret);
	*mode = __atomic_load_n(&sat_mode_set[dev], __ATOMIC_ACQUIRE) ?
		__atomic_load_n(&sat_mode[dev], __ATOMIC_RELAXED) :
		ACL_RT_OVERFLOW_MODE_INFNAN;
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize,
				aclrtStream stream)
{
	struct acl_stream *s;
	aclError ret;

	if (!outputAddr || !outputSize)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, outputAddr ?
					"outputSize is 0" : "outputAddr is NULL"));
	s = memreg__acl_stream_get(stream, &ret);
	if (!s)
		return acl_ret(ret);
	/*
	 * No overflow: the status (CANN's is a 64-byte block) is zeros,
	 * written in the stream's order, as on a device.
	 */
	ret = aclrtMemsetAsync(outputAddr, outputSize, 0,
			       outputSize < 64 ? outputSize : 64, stream);
	memreg__acl_stream_put(s);
	return acl_ret(ret);
}

aclError aclrtResetOverflowStatus(aclrtStream stream)
{
	struct acl_stream *s;
	aclError ret;

	s = memreg__acl_stream_get(stream, &ret);
	if (!s)
		return acl_ret(ret);
	memreg__acl_stream_put(s);
	return acl_ret(ACL_SUCCESS);
}

/*
 * CANN's attributes, as CANN decides them for the Ascend910B1: the SoC
 * has Inf/NaN mode and bf16 (its platform configuration says so), and
 * JIT compiling of operators needs CANN's compiler packages, which
 * memreg does not provide.  The list holds the available ones only.
 */
static const aclCannAttr cann_attrs[] = {
	ACL_CANN_ATTR_INF_NAN,
	ACL_CANN_ATTR_BF16,
};

aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
	if (!cannAttrList || !num)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					num ? "cannAttrList" : "num"));
	*cannAttrList = cann_attrs;
	*num = sizeof(cann_attrs) / sizeof(cann_attrs[0]);
	return acl_ret(ACL_SUCCESS);
}

aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
	if (!value)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "value is NULL"));
	switch (cannAttr) {
	case ACL_CANN_ATTR_INF_NAN:
	case ACL_CANN_ATTR_BF16:
		*value = 1;
		break;
	case ACL_CANN_ATTR_JIT_COMPILE:
		*value = 0;
		break;
	default:
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"cannAttr %d is no aclCannAttr",
					(int)cannAttr));
	}
	return acl_ret(ACL_SUCCESS);
}

/*
 * The architecture ("NpuArch") of each SoC, from CANN's platform
 * configuration (hicann/runtime, src/platform/platform_config).  Code
 * built for one SoC runs on another of the same architecture.  A name
 * ending in '*' stands for every name it begins.
 */
static const struct {
	const char *soc;
	int arch;
} soc_archs[] = {
	{ "Ascend910A", 1001 }, { "Ascend910B", 1001 },
	{ "Ascend910PremiumA", 1001 }, { "Ascend910ProA", 1001 },
	{ "Ascend910ProB", 1001 },
	{ "Ascend310P1", 2002 }, { "Ascend310P3", 2002 },
	{ "Ascend310P5", 2002 }, { "Ascend310P7", 2002 },
	{ "Ascend910B1", 2201 }, { "Ascend910B2", 2201 },
	{ "Ascend910B2C", 2201 }, { "Ascend910B3", 2201 },
	{ "Ascend910B4", 2201 }, { "Ascend910B4-1", 2201 },
	{ "Ascend910_93*", 2201 },
	{ "Ascend310B1", 3002 }, { "Ascend310B2", 3002 },
	{ "Ascend310B3", 3002 }, { "Ascend310B4", 3002 },
	{ "Ascend950*", 3510 }, { "Ascend350_*", 3510 },
};

/* @soc's architecture, or -1 if CANN does not know it. */
static int soc_arch(const char *soc)
{
	size_t i, n;

	for (i = 0; i < sizeof(soc_archs) / sizeof(soc_archs[0]); i++) {
		n = strlen(soc_archs[i].soc);
		if (soc_archs[i].soc[n - 1] == '*' ?
		    !strncmp(soc, soc_archs[i].soc, n - 1) :
		    !strcmp(soc, soc_archs[i].soc))
			return soc_archs[i].arch;
	}
	return -1;
}

/*
 * Against the SoC aclrtGetSocName names (so MEMREG_ACL_SOC_NAME moves
 * the answer too).  A SoC CANN does not know, on either side, is
 * ACL_ERROR_RT_PARAM_INVALID, as in CANN.
 */
aclError aclrtCheckArchCompatibility(const char *socVersion,
				     int32_t *canCompatible)
{
	const char *self = aclrtGetSocName();
	int want, have;

	if (!socVersion || !canCompatible)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"%s is NULL", socVersion ?
					"canCompatible" : "socVersion"));
	want = soc_arch(socVersion);
	if (want < 0)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"SoC version %s is unknown", socVersion));
	have = soc_arch(self);
	if (have < 0)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"the device's SoC %s is unknown", self));
	*canCompatible = want == have;
	return acl_ret(ACL_SUCCESS);
}

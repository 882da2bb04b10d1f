// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The small calls: half-precision conversion (CANN's saturating one, with
 * rounding to nearest even), element sizes, versions, the SoC name, the
 * overflow mode and status.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

static void test_float_to_half(void **state)
{
	(void)state;
	assert_int_equal(aclFloatToFloat16(0.0f), 0x0000);
	assert_int_equal(aclFloatToFloat16(-0.0f), 0x8000);
	assert_int_equal(aclFloatToFloat16(1.0f), 0x3c00);
	assert_int_equal(aclFloatToFloat16(-2.0f), 0xc000);
	assert_int_equal(aclFloatToFloat16(0.1f), 0x2e66);
	assert_int_equal(aclFloatToFloat16(65504.0f), 0x7bff);
	/* Ties to even: 1 + 2^-11 is halfway between 0x3c00 and 0x3c01. */
	assert_int_equal(aclFloatToFloat16(1.0f + 0x1p-11f), 0x3c00);
	assert_int_equal(aclFloatToFloat16(1.0f + 3 * 0x1p-11f), 0x3c02);
	assert_int_equal(aclFloatToFloat16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
	/* A carry out of the mantissa raises the exponent. */
	assert_int_equal(aclFloatToFloat16(2.0f - 0x1p-12f), 0x4000);
	/* Subnormals: 2^-24 is the smallest; 2^-25 is a tie that goes to 0. */
	assert_int_equal(aclFloatToFloat16(0x1p-24f), 0x0001);
	assert_int_equal(aclFloatToFloat16(0x1p-25f), 0x0000);
	assert_int_equal(aclFloatToFloat16(-0x1p-25f), 0x8000);
	assert_int_equal(aclFloatToFloat16(1.5f * 0x1p-25f), 0x0001);
	assert_int_equal(aclFloatToFloat16(3 * 0x1p-25f), 0x0002);
	assert_int_equal(aclFloatToFloat16(1023 * 0x1p-24f), 0x03ff);
	assert_int_equal(aclFloatToFloat16(0x1p-14f), 0x0400);
	/* Rounds up from the largest subnormal into the smallest normal. */
	assert_int_equal(aclFloatToFloat16(1023.5f * 0x1p-24f), 0x0400);
	assert_int_equal(aclFloatToFloat16(0x1p-30f), 0x0000);
	assert_int_equal(aclFloatToFloat16(1e-45f), 0x0000);
	/* Saturation, as CANN: too large, Inf and NaN give +-65504. */
	assert_int_equal(aclFloatToFloat16(65519.0f), 0x7bff);
	assert_int_equal(aclFloatToFloat16(65520.0f), 0x7bff);
	assert_int_equal(aclFloatToFloat16(1e10f), 0x7bff);
	assert_int_equal(aclFloatToFloat16(-1e10f), 0xfbff);
	assert_int_equal(aclFloatToFloat16(INFINITY), 0x7bff);
	assert_int_equal(aclFloatToFloat16(-INFINITY), 0xfbff);
	assert_int_equal(aclFloatToFloat16(NAN), 0x7bff);
	assert_int_equal(aclFloatToFloat16(-NAN), 0x7bff);
}

static void test_half_to_float(void **state)
{
	unsigned int h;
	float f;

	(void)state;
	assert_true(aclFloat16ToFloat(0x3c00) == 1.0f);
	assert_true(aclFloat16ToFloat(0xc000) == -2.0f);
	assert_true(aclFloat16ToFloat(0x0001) == 0x1p-24f);
	assert_true(aclFloat16ToFloat(0x03ff) == 1023 * 0x1p-24f);
	assert_true(aclFloat16ToFloat(0x8001) == -0x1p-24f);
	assert_true(aclFloat16ToFloat(0x7bff) == 65504.0f);
	f = aclFloat16ToFloat(0x8000);
	assert_true(f == 0.0f && signbit(f));
	/* As CANN: the Inf and NaN encodings read as finite numbers. */
	assert_true(aclFloat16ToFloat(0x7c00) == 65536.0f);
	assert_true(aclFloat16ToFloat(0xfc00) == -65536.0f);
	assert_true(aclFloat16ToFloat(0x7e00) == 98304.0f);
	/* Every finite half goes to a float and back unchanged. */
	for (h = 0; h <= 0xffff; h++) {
		if (((h >> 10) & 0x1f) == 0x1f)
			continue;
		assert_int_equal(aclFloatToFloat16(aclFloat16ToFloat((aclFloat16)h)), h);
	}
}

static void test_data_type_size(void **state)
{
	(void)state;
	assert_int_equal(aclDataTypeSize(ACL_FLOAT), 4);
	assert_int_equal(aclDataTypeSize(ACL_FLOAT16), 2);
	assert_int_equal(aclDataTypeSize(ACL_BF16), 2);
	assert_int_equal(aclDataTypeSize(ACL_INT8), 1);
	assert_int_equal(aclDataTypeSize(ACL_BOOL), 1);
	assert_int_equal(aclDataTypeSize(ACL_INT64), 8);
	assert_int_equal(aclDataTypeSize(ACL_DOUBLE), 8);
	assert_int_equal(aclDataTypeSize(ACL_COMPLEX64), 8);
	assert_int_equal(aclDataTypeSize(ACL_COMPLEX128), 16);
	assert_int_equal(aclDataTypeSize(ACL_COMPLEX32), 4);
	assert_int_equal(aclDataTypeSize(ACL_INT4), 1);
	assert_int_equal(aclDataTypeSize(ACL_STRING), 0);
	assert_int_equal(aclDataTypeSize(ACL_DT_UNDEFINED), 0);
	/* CANN's values, checked here so that a renumbering shows. */
	assert_int_equal(ACL_INT64, 9);
	assert_int_equal(ACL_BF16, 27);
	assert_int_equal(ACL_HIFLOAT4_SCALE, 43);
	assert_int_equal(ACL_FORMAT_NCL, 47);
	assert_int_equal(ACL_FORMAT_FRACTAL_NZ_C0_8, 54);
}

static void test_versions(void **state)
{
	char pkg[] = "runtime", cann[] = "cann", driver[] = "driver";
	char v[ACL_PKG_VERSION_MAX_SIZE] = { 0 };
	unsigned int a, b, c;
	int32_t n = 0;

	(void)state;
	assert_int_equal(aclsysGetVersionStr(pkg, v), ACL_SUCCESS);
	assert_int_equal(sscanf(v, "%u.%u.%u", &a, &b, &c), 3);
	assert_int_equal(aclsysGetVersionNum(pkg, &n), ACL_SUCCESS);
	assert_int_equal(n, (int32_t)(a * 1000000 + b * 10000 + c * 100 + 99));
	assert_int_equal(aclsysGetVersionNum(cann, &n), ACL_SUCCESS);
	assert_int_equal(aclsysGetVersionStr(driver, v), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclsysGetVersionStr(NULL, v), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclsysGetVersionNum(pkg, NULL), ACL_ERROR_INVALID_PARAM);
}

/* No aclInit: CANN's build scripts ask before anything is set up. */
static void test_soc_name(void **state)
{
	const char *name;

	(void)state;
	name = aclrtGetSocName();
	assert_non_null(name);
	assert_true(*name && strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(name));
	setenv("MEMREG_ACL_SOC_NAME", "Ascend310P3", 1);
	assert_string_equal(aclrtGetSocName(), "Ascend310P3");
	unsetenv("MEMREG_ACL_SOC_NAME");
}

static void test_overflow(void **state)
{
	aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
	aclrtStream s;
	void *d;

	(void)state;
	assert_int_equal(aclrtGetDeviceSatMode(&mode), ACL_SUCCESS);
	assert_int_equal(mode, ACL_RT_OVERFLOW_MODE_INFNAN);
	assert_int_equal(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION), ACL_SUCCESS);
	assert_int_equal(aclrtGetDeviceSatMode(&mode), ACL_SUCCESS);
	assert_int_equal(mode, ACL_RT_OVERFLOW_MODE_SATURATION);
	assert_int_equal(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF), ACL_ERROR_INVALID_PARAM);
	/* The mode is the device's: device 1 still has the default. */
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtGetDeviceSatMode(&mode), ACL_SUCCESS);
	assert_int_equal(mode, ACL_RT_OVERFLOW_MODE_INFNAN);
	assert_int_equal(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN), ACL_SUCCESS);
	assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtGetDeviceSatMode(&mode), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
	assert_int_equal(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN), ACL_SUCCESS);

	/* No overflow ever happens: the status block is written with zeros. */
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(d, 64, 0xff, 64), ACL_SUCCESS);
	assert_int_equal(aclrtGetOverflowStatus(d, 64, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(((unsigned char *)d)[0], 0);
	assert_int_equal(((unsigned char *)d)[63], 0);
	assert_int_equal(aclrtResetOverflowStatus(s), ACL_SUCCESS);
	assert_int_equal(aclrtGetOverflowStatus(NULL, 64, s), ACL_ERROR_INVALID_PARAM);
	aclrtDestroyStream(s);
	aclrtFree(d);
}

void run_misc_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_float_to_half),
		cmocka_unit_test(test_half_to_float),
		cmocka_unit_test(test_data_type_size),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_soc_name),
		cmocka_unit_test_setup_teardown(test_overflow,
						acl_test_setup, acl_test_teardown),
	};

	RUN_GROUP("acl_misc", tests, NULL, NULL, res);
}

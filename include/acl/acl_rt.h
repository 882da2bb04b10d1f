/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acl/acl_rt.h - the ACL runtime: initialisation, devices and contexts,
 * streams and events, host callbacks, device and host memory, copies.
 * Names, enum values and prototypes as in CANN; what memreg does behind
 * them (emulated devices of the memreg module) is in docs/acl.md.
 */
#ifndef MEMREG_ACL_ACL_RT_H
#define MEMREG_ACL_ACL_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"
#include "acl_rt_allocator.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclrtRunMode {
	ACL_DEVICE,
	ACL_HOST,
} aclrtRunMode;

typedef enum aclrtMemcpyKind {
	ACL_MEMCPY_HOST_TO_HOST,
	ACL_MEMCPY_HOST_TO_DEVICE,
	ACL_MEMCPY_DEVICE_TO_HOST,
	ACL_MEMCPY_DEVICE_TO_DEVICE,
	ACL_MEMCPY_DEFAULT,
	ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
	ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
	ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
	ACL_MEM_MALLOC_HUGE_FIRST,
	ACL_MEM_MALLOC_HUGE_ONLY,
	ACL_MEM_MALLOC_NORMAL_ONLY,
	ACL_MEM_MALLOC_HUGE_FIRST_P2P,
	ACL_MEM_MALLOC_HUGE_ONLY_P2P,
	ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
	ACL_MEM_MALLOC_HUGE1G_ONLY,
	ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
	ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
	ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
	ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000,
} aclrtMemMallocPolicy;

typedef enum aclrtMemAttr {
	ACL_DDR_MEM,
	ACL_HBM_MEM,
	ACL_DDR_MEM_HUGE,
	ACL_DDR_MEM_NORMAL,
	ACL_HBM_MEM_HUGE,
	ACL_HBM_MEM_NORMAL,
	ACL_DDR_MEM_P2P_HUGE,
	ACL_DDR_MEM_P2P_NORMAL,
	ACL_HBM_MEM_P2P_HUGE,
	ACL_HBM_MEM_P2P_NORMAL,
	ACL_HBM_MEM_HUGE1G,
	ACL_HBM_MEM_P2P_HUGE1G,
	ACL_MEM_NORMAL,
	ACL_MEM_HUGE,
	ACL_MEM_HUGE1G,
	ACL_MEM_P2P_NORMAL,
	ACL_MEM_P2P_HUGE,
	ACL_MEM_P2P_HUGE1G,
} aclrtMemAttr;

/* aclrtCreateEventWithFlag/ExWithFlag flags, a bitmap. */
#define ACL_EVENT_SYNC				0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS	0x00000002U
#define ACL_EVENT_TIME_LINE			0x00000008U
#define ACL_EVENT_DEVICE_USE_ONLY		0x00000010U
#define ACL_EVENT_EXTERNAL			0x00000020U
#define ACL_EVENT_IPC				0x00000040U

/* aclrtValueWait's conditions on the 64-bit value at the address. */
#define ACL_STREAM_WAIT_VALUE_GEQ		0x00000000U
#define ACL_STREAM_WAIT_VALUE_EQ		0x00000001U
#define ACL_STREAM_WAIT_VALUE_AND		0x00000002U
#define ACL_STREAM_WAIT_VALUE_NOR		0x00000003U

/* aclrtCreateStreamWithConfig's flags, a bitmap. */
#define ACL_STREAM_FAST_LAUNCH			0x00000001U
#define ACL_STREAM_FAST_SYNC			0x00000002U
#define ACL_STREAM_PERSISTENT			0x00000004U
#define ACL_STREAM_HUGE				0x00000008U
#define ACL_STREAM_CPU_SCHEDULE			0x00000010U
#define ACL_STREAM_DEVICE_USE_ONLY		0x00000020U

/*
 * aclrtSetStreamFailureMode: after a task fails, the stream runs the
 * tasks behind it (CONTINUE, the default) or drops them (STOP).
 */
#define ACL_CONTINUE_ON_FAILURE			0x00000000U
#define ACL_STOP_ON_FAILURE			0x00000001U

/* aclrtRecordEventWithFlag's and aclrtStreamWaitEventWithFlag's flag. */
#define ACL_EVENT_RECORD_DEFAULT		0x0U
#define ACL_EVENT_RECORD_EXTERNAL		0x01U
#define ACL_EVENT_WAIT_DEFAULT			0x0U
#define ACL_EVENT_WAIT_EXTERNAL			0x01U

/* aclmdlRIDebugJsonPrint's flags. */
#define ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY	0x0UL
#define ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE	0x1UL

/* aclrtGetDeviceCapability's answers. */
#define ACL_DEV_FEATURE_SUPPORT			0x00000001
#define ACL_DEV_FEATURE_NOT_SUPPORT		0x00000000

#define ACL_PKG_VERSION_MAX_SIZE		128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE		64

/*
 * aclrtIpcGetEventHandle's handle: opaque bytes another process gives to
 * aclrtIpcOpenEventHandle (docs/acl.md: what memreg keeps in them).
 */
#define ACL_IPC_EVENT_HANDLE_SIZE		64U
typedef struct aclrtIpcEventHandle {
	char reserved[ACL_IPC_EVENT_HANDLE_SIZE];
} aclrtIpcEventHandle;

/*
 * A model runtime instance: the tasks captured from a stream between
 * aclmdlRICaptureBegin and aclmdlRICaptureEnd, or queued on the
 * persistent streams bound to it between aclmdlRIBuildBegin and
 * aclmdlRIBuildEnd; run again by aclmdlRIExecuteAsync / aclmdlRIExecute.
 */
typedef void *aclmdlRI;

/*
 * aclmdlRIBindStream's flag: the stream runs from the start of each run
 * (HEAD), or only once control reaches it (DEFAULT).  CANN's API
 * reference gives these; its header names them in a comment only.
 */
#define ACL_MODEL_STREAM_FLAG_HEAD		0x00000000U
#define ACL_MODEL_STREAM_FLAG_DEFAULT		0x7FFFFFFFU

/* Which threads may make "unsafe" calls (aclrtMemcpy, ...) while capturing. */
typedef enum {
	ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
	ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
	ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
} aclmdlRICaptureMode;

typedef enum {
	ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
	ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
	ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED,
} aclmdlRICaptureStatus;

/* aclrtReduceAsync's operations: dst = dst OP src, element by element. */
typedef enum {
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM = 10,
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX = 11,
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN = 12,
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL = 13,
} aclrtReduceKind;

/*
 * aclrtRandomNumAsync's task.  A parameter is a value of the task's data
 * type in the first bytes of valueOrAddr (isAddr 0), or the address of
 * one (isAddr 1); size is how many bytes were filled in.
 */
typedef struct {
	uint8_t isAddr;
	uint8_t valueOrAddr[8];
	uint8_t size;
	uint8_t rsv[6];
} aclrtRandomParaInfo;

typedef struct {
	aclrtRandomParaInfo dropoutRation;
} aclrtDropoutBitmaskInfo;

typedef struct {
	aclrtRandomParaInfo min;
	aclrtRandomParaInfo max;
} aclrtUniformDisInfo;

typedef struct {
	aclrtRandomParaInfo mean;
	aclrtRandomParaInfo stddev;
} aclrtNormalDisInfo;

typedef enum {
	ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK = 0,
	ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
	ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,
	ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS,
} aclrtRandomNumFuncType;

typedef struct {
	aclrtRandomNumFuncType funcType;
	union {
		aclrtDropoutBitmaskInfo dropoutBitmaskInfo;
		aclrtUniformDisInfo uniformDisInfo;
		aclrtNormalDisInfo normalDisInfo;
	} paramInfo;
} aclrtRandomNumFuncParaInfo;

typedef struct {
	aclDataType dataType;
	aclrtRandomNumFuncParaInfo randomNumFuncParaInfo;
	void *randomParaAddr;
	void *randomResultAddr;
	void *randomCounterAddr;
	aclrtRandomParaInfo randomSeed;
	aclrtRandomParaInfo randomNum;
	uint8_t rsv[8];
} aclrtRandomNumTaskInfo;

typedef enum aclrtEventStatus {
	ACL_EVENT_STATUS_COMPLETE = 0,
	ACL_EVENT_STATUS_NOT_READY = 1,
	ACL_EVENT_STATUS_RESERVED = 2,
} aclrtEventStatus;

/* Note: the opposite order of aclrtEventStatus, as in CANN. */
typedef enum aclrtEventRecordedStatus {
	ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
	ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
} aclrtEventRecordedStatus;

typedef enum aclrtEventWaitStatus {
	ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
	ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
	ACL_EVENT_WAIT_STATUS_RESERVED = 0xFFFF,
} aclrtEventWaitStatus;

typedef enum aclrtStreamStatus {
	ACL_STREAM_STATUS_COMPLETE = 0,
	ACL_STREAM_STATUS_NOT_READY = 1,
	ACL_STREAM_STATUS_RESERVED = 0xFFFF,
} aclrtStreamStatus;

typedef enum aclrtCallbackBlockType {
	ACL_CALLBACK_NO_BLOCK,
	ACL_CALLBACK_BLOCK,
} aclrtCallbackBlockType;

typedef enum aclrtFloatOverflowMode {
	ACL_RT_OVERFLOW_MODE_SATURATION = 0,
	ACL_RT_OVERFLOW_MODE_INFNAN,
	ACL_RT_OVERFLOW_MODE_UNDEF,
} aclrtFloatOverflowMode;

/* Opaque: read it with the aclrtGet*FromExceptionInfo calls. */
typedef struct rtExceptionInfo aclrtExceptionInfo;

typedef enum {
	ACL_RT_DEV_RES_CUBE_CORE = 0,
	ACL_RT_DEV_RES_VECTOR_CORE,
} aclrtDevResLimitType;

/* Which error aclrtGetLastError and aclrtPeekAtLastError report. */
typedef enum aclrtLastErrLevel {
	ACL_RT_THREAD_LEVEL = 0,
} aclrtLastErrLevel;

/* aclrtGetErrorVerbose: a device's hardware error (none, emulated). */
#define MAX_MEM_UCE_INFO_ARRAY_SIZE 128
#define UCE_INFO_RESERVED_SIZE 14
#define ACL_RT_MEM_UCE_INFO_MAX_NUM 20

typedef struct aclrtMemUceInfo {
	void *addr;
	size_t len;
	size_t reserved[UCE_INFO_RESERVED_SIZE];
} aclrtMemUceInfo;

typedef enum {
	ACL_RT_NO_ERROR = 0,
	ACL_RT_ERROR_MEMORY = 1,
	ACL_RT_ERROR_L2 = 2,
	ACL_RT_ERROR_AICORE = 3,
	ACL_RT_ERROR_LINK = 4,
	ACL_RT_ERROR_L3_PORT = 5,
	ACL_RT_ERROR_OTHERS = 0xFFFF,
} aclrtErrorType;

typedef enum aclrtAicoreErrorType {
	ACL_RT_AICORE_ERROR_UNKNOWN,
	ACL_RT_AICORE_ERROR_SW,
	ACL_RT_AICORE_ERROR_HW_LOCAL,
} aclrtAicoreErrorType;

typedef struct {
	size_t arraySize;
	aclrtMemUceInfo memUceInfoArray[ACL_RT_MEM_UCE_INFO_MAX_NUM];
} aclrtMemUceInfoArray;

typedef union aclrtErrorInfoDetail {
	aclrtMemUceInfoArray uceInfo;
	aclrtAicoreErrorType aicoreErrType;
} aclrtErrorInfoDetail;

typedef struct aclrtErrorInfo {
	uint8_t tryRepair;
	uint8_t hasDetail;
	uint8_t reserved[2];
	aclrtErrorType errorType;
	aclrtErrorInfoDetail detail;
} aclrtErrorInfo;

/* What aclrtSetStreamConfigOpt sets in a stream config handle. */
typedef enum {
	ACL_RT_STREAM_WORK_ADDR_PTR = 0,	/* void *: the model's work memory */
	ACL_RT_STREAM_WORK_SIZE,		/* size_t: its size */
	ACL_RT_STREAM_FLAG,			/* size_t: ACL_STREAM_* flags */
	ACL_RT_STREAM_PRIORITY,			/* uint32_t: 0 (highest) to 7 */
} aclrtStreamConfigAttr;

/* Not opaque in CANN: the fields are public. */
typedef struct aclrtStreamConfigHandle {
	void *workptr;
	size_t workSize;
	size_t flag;
	uint32_t priority;
} aclrtStreamConfigHandle;

/* Percentages of a device's units in use; -1: cannot be told. */
typedef struct aclrtUtilizationExtendInfo aclrtUtilizationExtendInfo;

typedef struct aclrtUtilizationInfo {
	int32_t cubeUtilization;
	int32_t vectorUtilization;
	int32_t aicpuUtilization;
	int32_t memoryUtilization;
	aclrtUtilizationExtendInfo *utilizationExtend;	/* reserved: NULL */
} aclrtUtilizationInfo;

/* The features aclrtGetDeviceCapability asks about. */
typedef enum {
	ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1,
	ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21,
} aclrtDevFeatureType;

typedef void (*aclrtCallback)(void *userData);
typedef void (*aclrtExceptionInfoCallback)(aclrtExceptionInfo *exceptionInfo);

/* Process-wide set-up and tear-down; aclInit is reference counted. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount);

/* Devices and contexts; the current context is per thread. */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);

/* Streams: each runs its work in order, on a thread of its own. */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

/* Device memory of the current device, and page-locked host memory. */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size,
					 aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size,
						aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);

/*
 * Page-lock host memory the program already has (its own malloc, mmap,
 * shared memory): pinned and charged as aclrtMallocHost's, until
 * aclrtHostUnregister.  The device pointer is the host address itself:
 * the emulated devices reach host memory where the program does.
 */
typedef enum aclrtHostRegisterType {
	ACL_HOST_REGISTER_MAPPED = 0,
	ACL_HOST_REGISTER_IOMEMORY = 0x04,
	ACL_HOST_REGISTER_READONLY = 0x08,
} aclrtHostRegisterType;

/* aclrtHostRegisterV2's flags */
#define ACL_HOST_REG_MAPPED	0x2UL
#define ACL_HOST_REG_IOMEMORY	0x4UL
#define ACL_HOST_REG_READONLY	0x8UL
#define ACL_HOST_REG_PINNED	0x10000000UL

ACL_FUNC_VISIBILITY aclError aclrtHostRegister(void *ptr, uint64_t size,
					       aclrtHostRegisterType type,
					       void **devPtr);
ACL_FUNC_VISIBILITY aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice,
						       uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtHostUnregister(void *ptr);
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free,
					     size_t *total);

/* Copies and fills. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src,
					 size_t count, aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src,
					      size_t count, aclrtMemcpyKind kind,
					      aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value,
					 size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value,
					      size_t count, aclrtStream stream);

/*
 * Forced tear-down: the device whatever its aclrtSetDevice count, a
 * stream without waiting for its queue.  Work not yet started is dropped.
 */
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream,
							       int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);

/* Events: recorded and waited for as tasks of the streams. */
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status);
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event,
						   aclrtEventRecordedStatus *status);
ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event,
						       aclrtEventWaitStatus *status);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent,
						   aclrtEvent endEvent);
ACL_FUNC_VISIBILITY aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream,
							     aclrtEvent event, int32_t timeout);

/*
 * Events of ACL_EVENT_IPC (aclrtCreateEventExWithFlag) shared with other
 * processes: recorded in one, waited for or synchronized in another.
 */
ACL_FUNC_VISIBILITY aclError aclrtIpcGetEventHandle(aclrtEvent event,
						    aclrtIpcEventHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle,
						     aclrtEvent *event);

/* Host callbacks, run by the thread subscribed to the stream. */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
						 aclrtCallbackBlockType blockType,
						 aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);

/* Failed stream tasks. */
ACL_FUNC_VISIBILITY aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback);
ACL_FUNC_VISIBILITY uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info);

/* Timeouts and floating-point modes (docs/acl.md: what each one does). */
ACL_FUNC_VISIBILITY aclError aclrtSetOpWaitTimeout(uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode);
ACL_FUNC_VISIBILITY aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize,
						    aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtResetOverflowStatus(aclrtStream stream);

/*
 * The calling thread's most recent failure: its message (then cleared;
 * NULL if none), its code (Get clears it, Peek does not).
 */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
ACL_FUNC_VISIBILITY aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo);

/*
 * Stream tasks on a 64-bit value in device memory: write it, or wait
 * until it meets an ACL_STREAM_WAIT_VALUE_* condition.
 */
ACL_FUNC_VISIBILITY aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag,
					     aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag,
					    aclrtStream stream);

/*
 * Built-in tasks a device runs without an operator: a reduction of src
 * into dst (count in bytes), and random numbers into device memory.
 */
ACL_FUNC_VISIBILITY aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count,
					      aclrtReduceKind kind, aclDataType type,
					      aclrtStream stream, void *reserve);
ACL_FUNC_VISIBILITY aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo,
						 const aclrtStream stream, void *reserve);

/* Peer access between devices (docs/acl.md: always possible here). */
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId,
						      int32_t peerDeviceId);
ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);

/* The current context's default stream; the thread's device's cores. */
ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream);
ACL_FUNC_VISIBILITY aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type,
							 uint32_t *value);

/* Overflow detection of a stream's tasks: 1 on, 0 off. */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag);

/*
 * Streams made with a priority (0 highest, 7 lowest) and ACL_STREAM_*
 * flags, directly or through a config handle, and what they were made
 * with; a stream's id; how many more streams the device can have.
 */
ACL_FUNC_VISIBILITY aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle,
						     aclrtStreamConfigAttr attr,
						     const void *attrValue, size_t valueSize);
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamV2(aclrtStream *stream,
						 const aclrtStreamConfigHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
							 uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamAvailableNum(uint32_t *streamCount);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority,
							       int32_t *greatestPriority);

/* Record and wait with an ACL_EVENT_RECORD_* / ACL_EVENT_WAIT_* flag. */
ACL_FUNC_VISIBILITY aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream,
						      uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event,
							  uint32_t timeout, uint32_t flag);

/* Stream capture into a model runtime instance, and running it. */
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureGetInfo(aclrtStream stream,
						    aclmdlRICaptureStatus *status,
						    aclmdlRI *modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI);
ACL_DEPRECATED_MESSAGE("aclmdlRIDebugPrint is deprecated, use aclmdlRIDebugJsonPrint instead")
ACL_FUNC_VISIBILITY aclError aclmdlRIDebugPrint(aclmdlRI modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path,
						    uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode);
ACL_FUNC_VISIBILITY aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroy(aclmdlRI modelRI);

/*
 * Building a model from persistent streams (ACL_STREAM_PERSISTENT):
 * begin (flag reserved, 0), bind streams, queue their tasks, mark the
 * end of the run on one of them, end the build; unbind when done.
 */
ACL_FUNC_VISIBILITY aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream,
						uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve);
ACL_FUNC_VISIBILITY aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream);

/*
 * Labels: positions in the streams of a model being built, and lists of
 * them to switch between; the switch reads its uint32_t index from
 * device memory each time the model runs it.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateLabel(aclrtLabel *label);
ACL_FUNC_VISIBILITY aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyLabel(aclrtLabel label);
ACL_FUNC_VISIBILITY aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num,
						  aclrtLabelList *labelList);
ACL_FUNC_VISIBILITY aclError aclrtDestroyLabelList(aclrtLabelList labelList);
ACL_FUNC_VISIBILITY aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue,
						     aclrtLabelList labelList,
						     aclrtStream stream);

/*
 * A device's features, use, and uncorrectable memory errors; whether
 * code built for a SoC runs on the current device (*canCompatible 1).
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCapability(int32_t deviceId,
						      aclrtDevFeatureType devFeatureType,
						      int32_t *value);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceUtilizationRate(int32_t deviceId,
							   aclrtUtilizationInfo *utilizationInfo);
ACL_FUNC_VISIBILITY aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
						size_t arraySize, size_t *retSize);
ACL_FUNC_VISIBILITY aclError aclrtCheckArchCompatibility(const char *socVersion,
							 int32_t *canCompatible);

/*
 * Device memory shared between processes.  The exporter names a range of
 * an aclrtMalloc allocation (a key of at most 65 bytes, NUL included);
 * with the DEFAULT flag only the pids aclrtIpcMemSetImportPid names (from
 * their aclrtDeviceGetBareTgid) may import it.  The importer gets an
 * address of its own for the same memory; each side ends with
 * aclrtIpcMemClose, the importer first.
 */
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT			0x0UL
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION	0x1UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT			0x0UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS		0x1UL

ACL_FUNC_VISIBILITY aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size,
						     char *key, size_t len,
						     uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid,
						     size_t num);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemImportByKey(void **devPtr, const char *key,
						    uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemClose(const char *key);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetBareTgid(int32_t *pid);

/*
 * Virtual memory management: reserve a range of addresses, allocate
 * physical device memory as a handle, map the one into the other (what
 * torch_npu's expandable segments are built on); and share the physical
 * memory with other processes through a 64-bit shareable handle, which
 * with the DEFAULT flag only the pids aclrtMemSetPidToShareableHandle
 * names may import.
 */
#define ACL_RT_VMM_EXPORT_FLAG_DEFAULT			0x0UL
#define ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION	0x1UL

typedef enum aclrtMemLocationType {
	ACL_MEM_LOCATION_TYPE_HOST = 0,
	ACL_MEM_LOCATION_TYPE_DEVICE,
	ACL_MEM_LOCATION_TYPE_UNREGISTERED,
	ACL_MEM_LOCATION_TYPE_MANAGED,
	ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4,
} aclrtMemLocationType;

typedef struct aclrtMemLocation {
	uint32_t id;
	aclrtMemLocationType type;
} aclrtMemLocation;

/*
 * What aclrtPointerGetAttributes says of a pointer: device memory (@id
 * its device), page-locked host memory, or host memory the runtime does
 * not know (UNREGISTERED); and the size of the pages behind it.
 */
typedef struct aclrtPtrAttributes {
	aclrtMemLocation location;
	uint32_t pageSize;
	uint32_t rsv[4];
} aclrtPtrAttributes;

/*
 * The shareable handle of fabric memory (ACL_MEM_SHARE_HANDLE_TYPE_FABRIC
 * in CANN).  <adxl/adxl_types.h> defines it too for an acl_rt.h without
 * it: the macro keeps the two from both defining it.
 */
#ifndef MEMREG_ACL_MEM_FABRIC_HANDLE
#define MEMREG_ACL_MEM_FABRIC_HANDLE
typedef struct aclrtMemFabricHandle {
	uint8_t data[128];
} aclrtMemFabricHandle;
#endif

/*
 * The attributes of copies of aclrtMemcpyBatch: where the destination
 * and source are; @rsv must be zero.
 */
typedef struct {
	aclrtMemLocation dstLoc;
	aclrtMemLocation srcLoc;
	uint8_t rsv[16];
} aclrtMemcpyBatchAttr;

typedef enum aclrtMemAllocationType {
	ACL_MEM_ALLOCATION_TYPE_PINNED = 0,
} aclrtMemAllocationType;

typedef enum aclrtMemHandleType {
	ACL_MEM_HANDLE_TYPE_NONE = 0,
	ACL_MEM_HANDLE_TYPE_POSIX = 2,
} aclrtMemHandleType;

typedef struct aclrtPhysicalMemProp {
	aclrtMemHandleType handleType;
	aclrtMemAllocationType allocationType;
	aclrtMemAttr memAttr;
	aclrtMemLocation location;
	uint64_t reserve;
} aclrtPhysicalMemProp;

typedef enum aclrtMemGranularityOptions {
	ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
	ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
	ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF,
} aclrtMemGranularityOptions;

typedef void *aclrtDrvMemHandle;

/*
 * The V2 shareable handles: DEFAULT is the 64-bit handle of
 * aclrtMemExportToShareableHandle, FABRIC an aclrtMemFabricHandle.
 */
typedef enum aclrtMemSharedHandleType {
	ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT = 0x1,
	ACL_MEM_SHARE_HANDLE_TYPE_FABRIC = 0x2,
} aclrtMemSharedHandleType;

/* Who may reach a mapping, and how (aclrtMemSetAccess). */
typedef enum {
	ACL_RT_MEM_ACCESS_FLAGS_NONE = 0x0,
	ACL_RT_MEM_ACCESS_FLAGS_READ = 0x1,
	ACL_RT_MEM_ACCESS_FLAGS_READWRITE = 0x3,
} aclrtMemAccessFlags;

typedef struct {
	aclrtMemAccessFlags flags;
	aclrtMemLocation location;
	uint8_t rsv[12];
} aclrtMemAccessDesc;

ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
							      aclrtMemGranularityOptions option,
							      size_t *granularity);
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
						    void *expectPtr, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void *virPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
						 const aclrtPhysicalMemProp *prop,
						 uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle handle);
ACL_FUNC_VISIBILITY aclError aclrtMapMem(void *virPtr, size_t size, size_t offset,
					 aclrtDrvMemHandle handle, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void *virPtr);
ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle,
							     aclrtMemHandleType handleType,
							     uint64_t flags,
							     uint64_t *shareableHandle);
ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle,
							     int32_t *pid, size_t pidNum);
ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle,
							       int32_t deviceId,
							       aclrtDrvMemHandle *handle);

ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle,
							       uint64_t flags,
							       aclrtMemSharedHandleType shareType,
							       void *shareableHandle);
ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
								 aclrtMemSharedHandleType shareType,
								 uint64_t flags,
								 aclrtDrvMemHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
							       aclrtMemSharedHandleType shareType,
							       int32_t *pid, size_t pidNum);
/* The physical handle behind a mapped address (a new reference). */
ACL_FUNC_VISIBILITY aclError aclrtMemRetainAllocationHandle(void *virPtr,
							    aclrtDrvMemHandle *handle);
/* Access to a mapping by device (recorded; see docs/acl.md). */
ACL_FUNC_VISIBILITY aclError aclrtMemSetAccess(void *virPtr, size_t size,
					       aclrtMemAccessDesc *desc, size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location,
					       uint64_t *flag);

/* Where a pointer is (host, pinned host, a device's) and its page size. */
ACL_FUNC_VISIBILITY aclError aclrtPointerGetAttributes(const void *ptr,
						       aclrtPtrAttributes *attributes);

/* Logical and physical device ids: the same for the emulated devices. */
ACL_FUNC_VISIBILITY aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId,
							  int32_t *const phyDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId,
							  int32_t *const logicDevId);
/* User (ASCEND_RT_VISIBLE_DEVICES) and logical ids: the same here too. */
ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid,
							   int32_t *const logicDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId,
							   int32_t *const userDevid);

/*
 * A batch of copies, each with the attributes attrs[k] for the copies
 * from attrsIndexes[k] up to the next entry's; *failIndex is the copy
 * that failed, SIZE_MAX if none did (or the failure was no copy's).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs,
					      void **srcs, size_t *sizes,
					      size_t numBatches,
					      aclrtMemcpyBatchAttr *attrs,
					      size_t *attrsIndexes,
					      size_t numAttrs,
					      size_t *failIndex);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs,
						   void **srcs, size_t *sizes,
						   size_t numBatches,
						   aclrtMemcpyBatchAttr *attrs,
						   size_t *attrsIndexes,
						   size_t numAttrs,
						   size_t *failIndex,
						   aclrtStream stream);

/* Drop a stream's work not yet started; the stream stays usable. */
ACL_FUNC_VISIBILITY aclError aclrtStreamAbort(aclrtStream stream);
/* ACL_CONTINUE_ON_FAILURE or ACL_STOP_ON_FAILURE. */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream stream,
						       uint64_t mode);

/* Versions of the installed packages. */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char *pkgName, char *versionStr);
ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);

#ifdef __cplusplus
}
#endif

#endif /* MEMREG_ACL_ACL_RT_H */

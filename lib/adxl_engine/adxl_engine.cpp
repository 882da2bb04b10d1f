// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl::AdxlEngine (<adxl/adxl_engine.h>): each method is one call of the
 * C API (<adxl/adxl.h>, lib/adxl) on the engine the object holds.
 *
 * The class is out of line, as CANN's is, so that programs compiled
 * against CANN's header (Mooncake's ascend_direct transport declares it
 * itself) find its methods by CANN's names.  CANN has them in
 * libllm_datadist.so; this file is linked there and into libcann_hixl.so,
 * where memreg's pkg-config file and earlier programs look, under one
 * version node (exports.map): whichever library the process loaded first
 * answers every call, and both are this code over the same C API.
 */
#include <new>

#include "face.h"

#include <adxl/adxl_engine.h>

namespace adxl {

/* TransferOpDesc arrays go to the C API as they are. */
static_assert(sizeof(TransferOpDesc) == sizeof(adxl_transfer_desc) &&
		      offsetof(TransferOpDesc, local_addr) ==
			      offsetof(adxl_transfer_desc, local_addr) &&
		      offsetof(TransferOpDesc, remote_addr) ==
			      offsetof(adxl_transfer_desc, remote_addr) &&
		      offsetof(TransferOpDesc, len) ==
			      offsetof(adxl_transfer_desc, len),
	      "TransferOpDesc and adxl_transfer_desc differ");

/*
 * The engine, and nothing that needs destroying: ~AdxlEngine() destroys
 * it.  Hidden, so that its layout is this file's business.
 */
class __attribute__((visibility("hidden"))) AdxlEngine::AdxlEngineImpl {
 public:
	adxl_engine_t *engine = nullptr;

	/*
	 * @self's engine; NULL if the constructor ran out of memory, which
	 * every call of the C API refuses.
	 */
	static adxl_engine_t *Of(const AdxlEngine *self)
	{
		return self->impl_ ? self->impl_->engine : nullptr;
	}
};

namespace {
const adxl_transfer_desc *Descs(const std::vector<TransferOpDesc> &v)
{
	return reinterpret_cast<const adxl_transfer_desc *>(v.data());
}
}  // namespace

AdxlEngine::AdxlEngine() : impl_(new (std::nothrow) AdxlEngineImpl)
{
	if (impl_)
		adxl_engine_create(&impl_->engine);
}

AdxlEngine::~AdxlEngine()
{
	adxl_engine_destroy(AdxlEngineImpl::Of(this));
}

Status AdxlEngine::Initialize(const AscendString &local_engine,
			      const std::map<AscendString, AscendString> &options)
{
	adxl_engine_t *e = AdxlEngineImpl::Of(this);

	if (!e)
		return FAILED;
	std::vector<adxl_option> opts = memreg_face::Options(options);

	return adxl_initialize(e, local_engine.GetString(), opts.data(),
			       opts.size());
}

void AdxlEngine::Finalize()
{
	adxl_finalize(AdxlEngineImpl::Of(this));
}

Status AdxlEngine::RegisterMem(const MemDesc &mem, MemType type,
			       MemHandle &mem_handle)
{
	adxl_mem_desc d = { mem.addr, mem.len };

	return adxl_register_mem(AdxlEngineImpl::Of(this), &d,
				 static_cast<adxl_mem_type>(type), &mem_handle);
}

Status AdxlEngine::DeregisterMem(MemHandle mem_handle)
{
	return adxl_deregister_mem(AdxlEngineImpl::Of(this), mem_handle);
}

Status AdxlEngine::Connect(const AscendString &remote_engine,
			   int32_t timeout_in_millis)
{
	return adxl_connect(AdxlEngineImpl::Of(this), remote_engine.GetString(),
			    timeout_in_millis);
}

Status AdxlEngine::Disconnect(const AscendString &remote_engine,
			      int32_t timeout_in_millis)
{
	return adxl_disconnect(AdxlEngineImpl::Of(this),
			       remote_engine.GetString(), timeout_in_millis);
}

Status AdxlEngine::TransferSync(const AscendString &remote_engine,
				TransferOp operation,
				const std::vector<TransferOpDesc> &op_descs,
				int32_t timeout_in_millis)
{
	return adxl_transfer_sync(AdxlEngineImpl::Of(this),
				  remote_engine.GetString(),
				  static_cast<adxl_transfer_op>(operation),
				  Descs(op_descs), op_descs.size(),
				  timeout_in_millis);
}

Status AdxlEngine::TransferAsync(const AscendString &remote_engine,
				 TransferOp operation,
				 const std::vector<TransferOpDesc> &op_descs,
				 const TransferArgs &, TransferReq &req)
{
	return adxl_transfer_async(AdxlEngineImpl::Of(this),
				   remote_engine.GetString(),
				   static_cast<adxl_transfer_op>(operation),
				   Descs(op_descs), op_descs.size(), &req);
}

Status AdxlEngine::GetTransferStatus(const TransferReq &req,
				     TransferStatus &status)
{
	adxl_transfer_status s = ADXL_TRANSFER_WAITING;
	Status ret = adxl_get_transfer_status(AdxlEngineImpl::Of(this), req, &s);

	status = static_cast<TransferStatus>(s);
	return ret;
}

Status AdxlEngine::SendNotify(const AscendString &remote_engine,
			      const NotifyDesc &notify,
			      int32_t timeout_in_millis)
{
	return adxl_send_notify(AdxlEngineImpl::Of(this),
				remote_engine.GetString(),
				notify.name.GetString(), notify.name.GetLength(),
				notify.notify_msg.GetString(),
				notify.notify_msg.GetLength(), timeout_in_millis);
}

Status AdxlEngine::GetNotifies(std::vector<NotifyDesc> &notifies)
{
	return memreg_face::GetNotifies(AdxlEngineImpl::Of(this), notifies);
}

Status AdxlEngine::MallocMem(MemType type, size_t size, void **ptr)
{
	return adxl_malloc_mem(static_cast<adxl_mem_type>(type), size, ptr);
}

Status AdxlEngine::ExportToShareableHandle(void *addr, ShareableHandle &handle)
{
	return adxl_export_shareable_handle(addr, handle.data);
}

Status AdxlEngine::FreeMem(void *ptr)
{
	return adxl_free_mem(ptr);
}

Status AdxlEngine::GetCapability(FeatureType feature_type, int32_t &value)
{
	return adxl_get_capability(feature_type, &value);
}

}  // namespace adxl

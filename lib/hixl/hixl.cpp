// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hixl::Hixl (<hixl/hixl.h>): each method is one call of the C API
 * (<adxl/adxl.h>, lib/adxl) on the engine the object holds, as
 * adxl::AdxlEngine's are; what hixl answers differently is said where it
 * is done.  Out of line, in libcann_hixl.so, where CANN has the class
 * (hixl's src/hixl/CMakeLists.txt; Mooncake's TENT transport and hixl's
 * examples link -lcann_hixl for it).
 */
#include <new>

#include "../adxl_engine/face.h"

#include <hixl/hixl.h>

namespace hixl {

/* TransferOpDesc arrays go to the C API as they are. */
static_assert(sizeof(TransferOpDesc) == sizeof(adxl_transfer_desc) &&
		      offsetof(TransferOpDesc, local_addr) ==
			      offsetof(adxl_transfer_desc, local_addr) &&
		      offsetof(TransferOpDesc, remote_addr) ==
			      offsetof(adxl_transfer_desc, remote_addr) &&
		      offsetof(TransferOpDesc, len) ==
			      offsetof(adxl_transfer_desc, len),
	      "TransferOpDesc and adxl_transfer_desc differ");

/* The engine; ~Hixl() destroys it (lib/adxl_engine/adxl_engine.cpp). */
class __attribute__((visibility("hidden"))) Hixl::HixlImpl {
 public:
	adxl_engine_t *engine = nullptr;

	static adxl_engine_t *Of(const Hixl *self)
	{
		return self->impl_ ? self->impl_->engine : nullptr;
	}
};

namespace {
const adxl_transfer_desc *Descs(const std::vector<TransferOpDesc> &v)
{
	return reinterpret_cast<const adxl_transfer_desc *>(v.data());
}

/* adxl_connect_status_fn into GetAsyncConnectStatus's map. */
using StatusSink =
	memreg_face::Sink<std::map<AscendString, AsyncConnectStatus>>;

void PutStatus(const char *remote_engine, adxl_connect_status status,
	       void *arg) noexcept
{
	auto *s = static_cast<StatusSink *>(arg);

	try {
		(*s->out)[AscendString(remote_engine)] =
			static_cast<AsyncConnectStatus>(status);
	} catch (const std::exception &) {
		s->failed = true;
	}
}

/* adxl_transfer_result_fn into GetTransferStatus's vector. */
using ResultSink = memreg_face::Sink<std::vector<TransferResult>>;

void PutResult(const adxl_transfer_result *r, void *arg) noexcept
{
	auto *s = static_cast<ResultSink *>(arg);
	TransferResult res;

	res.req = r->req;
	res.user_data = r->user_data;
	res.status = static_cast<TransferStatus>(r->status);
	try {
		s->out->push_back(res);
	} catch (const std::exception &) {
		s->failed = true;
	}
}

/* A failed sink after a good call: what was dropped is said, FAILED. */
Status SinkFailed(const char *call)
{
	std::fprintf(stderr, "adxl: %s: out of memory, results lost\n", call);
	return FAILED;
}
}  // namespace

Hixl::Hixl() : impl_(new (std::nothrow) HixlImpl)
{
	if (impl_)
		adxl_engine_create(&impl_->engine);
}

Hixl::~Hixl()
{
	adxl_engine_destroy(HixlImpl::Of(this));
}

Status Hixl::Initialize(const AscendString &local_engine,
			const std::map<AscendString, AscendString> &options)
{
	adxl_engine_t *e = HixlImpl::Of(this);

	if (!e)
		return FAILED;
	std::vector<adxl_option> opts = memreg_face::Options(options);

	return adxl_initialize(e, local_engine.GetString(), opts.data(),
			       opts.size());
}

void Hixl::Finalize()
{
	adxl_finalize(HixlImpl::Of(this));
}

Status Hixl::RegisterMem(const MemDesc &mem, MemType type,
			 MemHandle &mem_handle)
{
	adxl_mem_desc d = { mem.addr, mem.len };

	return adxl_register_mem(HixlImpl::Of(this), &d,
				 static_cast<adxl_mem_type>(type), &mem_handle);
}

/*
 * hixl's codes are the C API's: FAILED before Initialize (whatever the
 * handle), then PARAM_INVALID for NULL, SUCCESS for an unknown handle.
 */
Status Hixl::DeregisterMem(MemHandle mem_handle)
{
	return adxl_deregister_mem(HixlImpl::Of(this), mem_handle);
}

Status Hixl::Connect(const AscendString &remote_engine,
		     int32_t timeout_in_millis)
{
	return adxl_connect(HixlImpl::Of(this), remote_engine.GetString(),
			    timeout_in_millis);
}

Status Hixl::Disconnect(const AscendString &remote_engine,
			int32_t timeout_in_millis)
{
	return adxl_disconnect(HixlImpl::Of(this), remote_engine.GetString(),
			       timeout_in_millis);
}

Status Hixl::ConnectAsync(const AscendString &remote_engine,
			  int32_t timeout_in_millis)
{
	return adxl_connect_async(HixlImpl::Of(this), remote_engine.GetString(),
				  timeout_in_millis);
}

Status Hixl::DisconnectAsync(const AscendString &remote_engine,
			     int32_t timeout_in_millis)
{
	return adxl_disconnect_async(HixlImpl::Of(this),
				     remote_engine.GetString(),
				     timeout_in_millis);
}

Status Hixl::GetAsyncConnectStatus(const AscendString &remote_engine,
				   AsyncConnectStatus &status)
{
	adxl_connect_status s = ADXL_CONN_NOT_CONNECT;
	Status ret = adxl_get_async_connect_status(HixlImpl::Of(this),
						   remote_engine.GetString(),
						   &s);

	status = static_cast<AsyncConnectStatus>(s);
	return ret;
}

Status Hixl::GetAsyncConnectStatus(
	std::map<AscendString, AsyncConnectStatus> &statuses)
{
	StatusSink s = { &statuses, false };
	Status ret;

	statuses.clear();
	ret = adxl_get_async_connect_statuses(HixlImpl::Of(this), PutStatus,
					      &s);
	if (ret == SUCCESS && s.failed)
		return SinkFailed("GetAsyncConnectStatus");
	return ret;
}

Status Hixl::TransferSync(const AscendString &remote_engine,
			  TransferOp operation,
			  const std::vector<TransferOpDesc> &op_descs,
			  int32_t timeout_in_millis)
{
	return adxl_transfer_sync(HixlImpl::Of(this), remote_engine.GetString(),
				  static_cast<adxl_transfer_op>(operation),
				  Descs(op_descs), op_descs.size(),
				  timeout_in_millis);
}

Status Hixl::TransferAsync(const AscendString &remote_engine,
			   TransferOp operation,
			   const std::vector<TransferOpDesc> &op_descs,
			   const TransferArgs &optional_args, TransferReq &req)
{
	return adxl_transfer_async_ex(HixlImpl::Of(this),
				      remote_engine.GetString(),
				      static_cast<adxl_transfer_op>(operation),
				      Descs(op_descs), op_descs.size(),
				      optional_args.user_data, &req);
}

/*
 * The C API gives hixl's codes (NULL or not initialised: FAILED; unknown
 * or already reported: PARAM_INVALID) and sets FAILED on every failure.
 */
Status Hixl::GetTransferStatus(const TransferReq &req, TransferStatus &status)
{
	adxl_transfer_status s = ADXL_TRANSFER_FAILED;
	Status ret = adxl_get_transfer_status(HixlImpl::Of(this), req, &s);

	status = static_cast<TransferStatus>(s);
	return ret;
}

Status Hixl::GetTransferStatus(const GetTransferStatusArgs &args,
			       std::vector<TransferResult> &results)
{
	ResultSink s = { &results, false };
	Status ret;

	results.clear();
	ret = adxl_get_transfer_statuses(HixlImpl::Of(this),
					 args.max_query_count, args.skip_waiting,
					 PutResult, &s);
	if (ret == SUCCESS && s.failed)
		return SinkFailed("GetTransferStatus");
	return ret;
}

Status Hixl::SendNotify(const AscendString &remote_engine,
			const NotifyDesc &notify, int32_t timeout_in_millis)
{
	return adxl_send_notify(HixlImpl::Of(this), remote_engine.GetString(),
				notify.name.GetString(), notify.name.GetLength(),
				notify.notify_msg.GetString(),
				notify.notify_msg.GetLength(), timeout_in_millis);
}

Status Hixl::GetNotifies(std::vector<NotifyDesc> &notifies)
{
	return memreg_face::GetNotifies(HixlImpl::Of(this), notifies);
}

Status Hixl::GetCapability(FeatureType feature_type, int32_t &value)
{
	return adxl_get_capability(feature_type, &value);
}

}  // namespace hixl

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hixl::Hixl, source-compatible with CANN's include/hixl/hixl.h: the
 * successor of adxl::AdxlEngine, header-only over the same C API of
 * <adxl/adxl.h> (link with -lmemreg, or -lcann_hixl in the CANN tree), so
 * one engine answers to both faces.  The semantics are documented in
 * docs/adxl.md ("hixl::Hixl").
 */
#ifndef MEMREG_HIXL_HIXL_H
#define MEMREG_HIXL_HIXL_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>
#include <adxl/adxl.h>
#include "hixl_types.h"

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

class ASCEND_FUNC_VISIBILITY Hixl {
 public:
	Hixl() : engine_(nullptr)
	{
		/* Out of memory here shows as FAILED from Initialize. */
		adxl_engine_create(&engine_);
	}

	~Hixl()
	{
		adxl_engine_destroy(engine_);
	}

	Hixl(const Hixl &) = delete;
	Hixl &operator=(const Hixl &) = delete;

	Status Initialize(const AscendString &local_engine,
			  const std::map<AscendString, AscendString> &options)
	{
		std::vector<adxl_option> opts;

		if (!engine_)
			return FAILED;
		for (const auto &kv : options)
			opts.push_back(adxl_option{ kv.first.GetString(),
						    kv.second.GetString() });
		return adxl_initialize(engine_, local_engine.GetString(),
				       opts.data(), opts.size());
	}

	void Finalize()
	{
		adxl_finalize(engine_);
	}

	Status RegisterMem(const MemDesc &mem, MemType type,
			   MemHandle &mem_handle)
	{
		adxl_mem_desc d = { mem.addr, mem.len };

		return adxl_register_mem(engine_, &d,
					 static_cast<adxl_mem_type>(type),
					 &mem_handle);
	}

	/* hixl refuses a NULL handle; an unknown one is SUCCESS, as adxl. */
	Status DeregisterMem(MemHandle mem_handle)
	{
		if (!mem_handle)
			return PARAM_INVALID;
		return adxl_deregister_mem(engine_, mem_handle);
	}

	Status Connect(const AscendString &remote_engine,
		       int32_t timeout_in_millis = 1000)
	{
		return adxl_connect(engine_, remote_engine.GetString(),
				    timeout_in_millis);
	}

	Status Disconnect(const AscendString &remote_engine,
			  int32_t timeout_in_millis = 1000)
	{
		return adxl_disconnect(engine_, remote_engine.GetString(),
				       timeout_in_millis);
	}

	Status ConnectAsync(const AscendString &remote_engine,
			    int32_t timeout_in_millis = 1000)
	{
		return adxl_connect_async(engine_, remote_engine.GetString(),
					  timeout_in_millis);
	}

	Status DisconnectAsync(const AscendString &remote_engine,
			       int32_t timeout_in_millis = 1000)
	{
		return adxl_disconnect_async(engine_,
					     remote_engine.GetString(),
					     timeout_in_millis);
	}

	Status GetAsyncConnectStatus(const AscendString &remote_engine,
				     AsyncConnectStatus &status)
	{
		adxl_connect_status s = ADXL_CONN_NOT_CONNECT;
		Status ret = adxl_get_async_connect_status(
			engine_, remote_engine.GetString(), &s);

		status = static_cast<AsyncConnectStatus>(s);
		return ret;
	}

	Status GetAsyncConnectStatus(
		std::map<AscendString, AsyncConnectStatus> &statuses)
	{
		statuses.clear();
		return adxl_get_async_connect_statuses(engine_, PutStatus,
						       &statuses);
	}

	Status TransferSync(const AscendString &remote_engine,
			    TransferOp operation,
			    const std::vector<TransferOpDesc> &op_descs,
			    int32_t timeout_in_millis = 1000)
	{
		return adxl_transfer_sync(
			engine_, remote_engine.GetString(),
			static_cast<adxl_transfer_op>(operation),
			reinterpret_cast<const adxl_transfer_desc *>(op_descs.data()),
			op_descs.size(), timeout_in_millis);
	}

	Status TransferAsync(const AscendString &remote_engine,
			     TransferOp operation,
			     const std::vector<TransferOpDesc> &op_descs,
			     const TransferArgs &optional_args, TransferReq &req)
	{
		return adxl_transfer_async_ex(
			engine_, remote_engine.GetString(),
			static_cast<adxl_transfer_op>(operation),
			reinterpret_cast<const adxl_transfer_desc *>(op_descs.data()),
			op_descs.size(), optional_args.user_data, &req);
	}

	/*
	 * A request hixl does not know (never made, or already reported
	 * done) is PARAM_INVALID with status FAILED; the C API says FAILED
	 * and leaves the status alone, which tells it from a failed transfer.
	 */
	Status GetTransferStatus(const TransferReq &req, TransferStatus &status)
	{
		adxl_transfer_status s = ADXL_TRANSFER_TIMEOUT;
		Status ret = adxl_get_transfer_status(engine_, req, &s);

		if (ret != SUCCESS && s == ADXL_TRANSFER_TIMEOUT) {
			status = TransferStatus::FAILED;
			return engine_ ? PARAM_INVALID : FAILED;
		}
		status = static_cast<TransferStatus>(s);
		return ret;
	}

	Status GetTransferStatus(const GetTransferStatusArgs &args,
				 std::vector<TransferResult> &results)
	{
		results.clear();
		return adxl_get_transfer_statuses(engine_, args.max_query_count,
						  args.skip_waiting, PutResult,
						  &results);
	}

	Status SendNotify(const AscendString &remote_engine,
			  const NotifyDesc &notify,
			  int32_t timeout_in_millis = 1000)
	{
		return adxl_send_notify(engine_, remote_engine.GetString(),
					notify.name.GetString(),
					notify.name.GetLength(),
					notify.notify_msg.GetString(),
					notify.notify_msg.GetLength(),
					timeout_in_millis);
	}

	Status GetNotifies(std::vector<NotifyDesc> &notifies)
	{
		return adxl_get_notifies(engine_, AppendNotify, &notifies);
	}

	static Status GetCapability(FeatureType feature_type, int32_t &value)
	{
		return adxl_get_capability(feature_type, &value);
	}

 private:
	static void AppendNotify(const char *name, size_t name_len,
				 const char *msg, size_t msg_len, void *arg)
	{
		static_cast<std::vector<NotifyDesc> *>(arg)->push_back(
			NotifyDesc{ AscendString(name, name_len),
				    AscendString(msg, msg_len) });
	}

	static void PutStatus(const char *remote_engine,
			      adxl_connect_status status, void *arg)
	{
		(*static_cast<std::map<AscendString, AsyncConnectStatus> *>(
			arg))[AscendString(remote_engine)] =
			static_cast<AsyncConnectStatus>(status);
	}

	static void PutResult(const adxl_transfer_result *r, void *arg)
	{
		TransferResult res;

		res.req = r->req;
		res.user_data = r->user_data;
		res.status = static_cast<TransferStatus>(r->status);
		static_cast<std::vector<TransferResult> *>(arg)->push_back(res);
	}

	adxl_engine_t *engine_;
};

}  // namespace hixl

#endif /* MEMREG_HIXL_HIXL_H */

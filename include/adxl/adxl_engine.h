/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * adxl::AdxlEngine, source-compatible with CANN's include/adxl/adxl_engine.h,
 * header-only over the C API of <adxl/adxl.h> (link with -lmemreg): no C++
 * ABI crosses the library boundary, so any C++ compiler and standard
 * library can use it.  The semantics are documented in docs/adxl.md.
 */
#ifndef MEMREG_ADXL_ADXL_ENGINE_H
#define MEMREG_ADXL_ADXL_ENGINE_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>
#include <adxl/adxl.h>
#include <adxl/adxl_types.h>

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

class ASCEND_FUNC_VISIBILITY AdxlEngine {
 public:
	AdxlEngine() : engine_(nullptr)
	{
		/* Out of memory here shows as FAILED from Initialize. */
		adxl_engine_create(&engine_);
	}

	~AdxlEngine()
	{
		adxl_engine_destroy(engine_);
	}

	AdxlEngine(const AdxlEngine &) = delete;
	AdxlEngine &operator=(const AdxlEngine &) = delete;

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

	Status DeregisterMem(MemHandle mem_handle)
	{
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
		(void)optional_args;	/* reserved bytes only */
		return adxl_transfer_async(
			engine_, remote_engine.GetString(),
			static_cast<adxl_transfer_op>(operation),
			reinterpret_cast<const adxl_transfer_desc *>(op_descs.data()),
			op_descs.size(), &req);
	}

	Status GetTransferStatus(const TransferReq &req, TransferStatus &status)
	{
		adxl_transfer_status s = ADXL_TRANSFER_WAITING;
		Status ret = adxl_get_transfer_status(engine_, req, &s);

		status = static_cast<TransferStatus>(s);
		return ret;
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

	static Status MallocMem(MemType type, size_t size, void **ptr)
	{
		return adxl_malloc_mem(static_cast<adxl_mem_type>(type), size,
				       ptr);
	}

	static Status ExportToShareableHandle(void *addr,
					      ShareableHandle &handle)
	{
		return adxl_export_shareable_handle(addr, handle.data);
	}

	static Status FreeMem(void *ptr)
	{
		return adxl_free_mem(ptr);
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

	adxl_engine_t *engine_;
};

}  // namespace adxl

#endif /* MEMREG_ADXL_ADXL_ENGINE_H */

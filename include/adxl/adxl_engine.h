/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * adxl::AdxlEngine as CANN declares it (include/adxl/adxl_engine.h of
 * hicann/hixl): one std::unique_ptr to the engine, every method out of
 * line.  The methods are in libllm_datadist.so, where CANN has them, and
 * in libcann_hixl.so, beside the C API of <adxl/adxl.h> they are built on
 * (docs/adxl.md, "Libraries"), so a program compiled against CANN's own
 * header links and runs here.  No argument is a std::string: a program of
 * either libstdc++ string ABI uses the same symbols.  The semantics are
 * documented in docs/adxl.md.
 */
#ifndef MEMREG_ADXL_ADXL_ENGINE_H
#define MEMREG_ADXL_ADXL_ENGINE_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>
#include <adxl/adxl_types.h>

namespace adxl {

class ASCEND_FUNC_VISIBILITY AdxlEngine {
 public:
	/* Out of memory here shows as FAILED from Initialize. */
	AdxlEngine();
	/* Finalizes the engine if it is initialised. */
	~AdxlEngine();

	Status Initialize(const AscendString &local_engine,
			  const std::map<AscendString, AscendString> &options);
	void Finalize();

	Status RegisterMem(const MemDesc &mem, MemType type,
			   MemHandle &mem_handle);
	/* An unknown handle is SUCCESS, as in CANN. */
	Status DeregisterMem(MemHandle mem_handle);

	Status Connect(const AscendString &remote_engine,
		       int32_t timeout_in_millis = 1000);
	Status Disconnect(const AscendString &remote_engine,
			  int32_t timeout_in_millis = 1000);

	Status TransferSync(const AscendString &remote_engine,
			    TransferOp operation,
			    const std::vector<TransferOpDesc> &op_descs,
			    int32_t timeout_in_millis = 1000);
	/* optional_args: reserved bytes only. */
	Status TransferAsync(const AscendString &remote_engine,
			     TransferOp operation,
			     const std::vector<TransferOpDesc> &op_descs,
			     const TransferArgs &optional_args, TransferReq &req);
	Status GetTransferStatus(const TransferReq &req, TransferStatus &status);

	Status SendNotify(const AscendString &remote_engine,
			  const NotifyDesc &notify,
			  int32_t timeout_in_millis = 1000);
	/* Appends every notify received so far. */
	Status GetNotifies(std::vector<NotifyDesc> &notifies);

	static Status MallocMem(MemType type, size_t size, void **ptr);
	static Status ExportToShareableHandle(void *addr,
					      ShareableHandle &handle);
	static Status FreeMem(void *ptr);
	static Status GetCapability(FeatureType feature_type, int32_t &value);

 private:
	class AdxlEngineImpl;
	std::unique_ptr<AdxlEngineImpl> impl_;
};

}  // namespace adxl

#endif /* MEMREG_ADXL_ADXL_ENGINE_H */

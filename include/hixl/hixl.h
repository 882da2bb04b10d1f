/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hixl::Hixl as CANN declares it (include/hixl/hixl.h of hicann/hixl):
 * the successor of adxl::AdxlEngine, one std::unique_ptr to the engine,
 * every method out of line in libcann_hixl.so, where CANN has them, on
 * the same C API of <adxl/adxl.h>, so one engine answers to both faces.
 * No argument is a std::string: a program of either libstdc++ string ABI
 * uses the same symbols.  The semantics are documented in docs/adxl.md
 * ("hixl::Hixl").
 */
#ifndef MEMREG_HIXL_HIXL_H
#define MEMREG_HIXL_HIXL_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>
#include "hixl_types.h"

namespace hixl {

class ASCEND_FUNC_VISIBILITY Hixl {
 public:
	/* Out of memory here shows as FAILED from Initialize. */
	Hixl();
	/* Finalizes the engine if it is initialised. */
	~Hixl();

	Status Initialize(const AscendString &local_engine,
			  const std::map<AscendString, AscendString> &options);
	void Finalize();

	Status RegisterMem(const MemDesc &mem, MemType type,
			   MemHandle &mem_handle);
	/* hixl refuses a NULL handle; an unknown one is SUCCESS, as adxl. */
	Status DeregisterMem(MemHandle mem_handle);

	Status Connect(const AscendString &remote_engine,
		       int32_t timeout_in_millis = 1000);
	Status Disconnect(const AscendString &remote_engine,
			  int32_t timeout_in_millis = 1000);
	Status ConnectAsync(const AscendString &remote_engine,
			    int32_t timeout_in_millis = 1000);
	Status DisconnectAsync(const AscendString &remote_engine,
			       int32_t timeout_in_millis = 1000);
	Status GetAsyncConnectStatus(const AscendString &remote_engine,
				     AsyncConnectStatus &status);
	/* Every peer with an asynchronous operation; @statuses is cleared first. */
	Status GetAsyncConnectStatus(
		std::map<AscendString, AsyncConnectStatus> &statuses);

	Status TransferSync(const AscendString &remote_engine,
			    TransferOp operation,
			    const std::vector<TransferOpDesc> &op_descs,
			    int32_t timeout_in_millis = 1000);
	Status TransferAsync(const AscendString &remote_engine,
			     TransferOp operation,
			     const std::vector<TransferOpDesc> &op_descs,
			     const TransferArgs &optional_args, TransferReq &req);
	/*
	 * A request hixl does not know (never made, or already reported
	 * done) is PARAM_INVALID with status FAILED.
	 */
	Status GetTransferStatus(const TransferReq &req, TransferStatus &status);
	/* @results is cleared first. */
	Status GetTransferStatus(const GetTransferStatusArgs &args,
				 std::vector<TransferResult> &results);

	Status SendNotify(const AscendString &remote_engine,
			  const NotifyDesc &notify,
			  int32_t timeout_in_millis = 1000);
	/* Appends every notify received so far. */
	Status GetNotifies(std::vector<NotifyDesc> &notifies);

	static Status GetCapability(FeatureType feature_type, int32_t &value);

 private:
	class HixlImpl;
	std::unique_ptr<HixlImpl> impl_;
};

}  // namespace hixl

#endif /* MEMREG_HIXL_HIXL_H */

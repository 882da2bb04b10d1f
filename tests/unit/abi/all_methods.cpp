// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every method CANN declares for its four classes (cann_decls.h), used:
 * the object file's undefined symbols are the names a program compiled
 * against CANN's headers can ask the libraries for.  Compiled, never
 * linked or run; the Makefile checks that each name is in a list of
 * symbols/ (which the libraries are checked against), so that a method
 * added to cann_decls.h cannot be missed by the lists.
 */
#include "cann_decls.h"

/* The address of each, kept from the optimizer. */
template <class T>
void Use(T t)
{
	asm volatile("" : : "g"(&t) : "memory");
}

void UseEveryMethod()
{
	delete new ge::AscendString("x");
	delete new ge::AscendString("x", 1);
	Use(&ge::AscendString::GetString);
	Use(&ge::AscendString::GetLength);
	Use(&ge::AscendString::Find);
	Use(&ge::AscendString::Hash);
	Use(static_cast<bool (ge::AscendString::*)(const ge::AscendString &) const>(&ge::AscendString::operator<));
	Use(static_cast<bool (ge::AscendString::*)(const ge::AscendString &) const>(&ge::AscendString::operator>));
	Use(static_cast<bool (ge::AscendString::*)(const ge::AscendString &) const>(&ge::AscendString::operator<=));
	Use(static_cast<bool (ge::AscendString::*)(const ge::AscendString &) const>(&ge::AscendString::operator>=));
	Use(static_cast<bool (ge::AscendString::*)(const ge::AscendString &) const>(&ge::AscendString::operator==));
	Use(static_cast<bool (ge::AscendString::*)(const ge::AscendString &) const>(&ge::AscendString::operator!=));
	Use(static_cast<bool (ge::AscendString::*)(const ge::char_t *const) const>(&ge::AscendString::operator==));
	Use(static_cast<bool (ge::AscendString::*)(const ge::char_t *const) const>(&ge::AscendString::operator!=));

	delete new adxl::AdxlEngine();
	Use(&adxl::AdxlEngine::Initialize);
	Use(&adxl::AdxlEngine::Finalize);
	Use(&adxl::AdxlEngine::RegisterMem);
	Use(&adxl::AdxlEngine::DeregisterMem);
	Use(&adxl::AdxlEngine::Connect);
	Use(&adxl::AdxlEngine::Disconnect);
	Use(&adxl::AdxlEngine::TransferSync);
	Use(&adxl::AdxlEngine::TransferAsync);
	Use(&adxl::AdxlEngine::GetTransferStatus);
	Use(&adxl::AdxlEngine::SendNotify);
	Use(&adxl::AdxlEngine::GetNotifies);
	Use(&adxl::AdxlEngine::MallocMem);
	Use(&adxl::AdxlEngine::ExportToShareableHandle);
	Use(&adxl::AdxlEngine::FreeMem);
	Use(&adxl::AdxlEngine::GetCapability);

	delete new hixl::Hixl();
	Use(&hixl::Hixl::Initialize);
	Use(&hixl::Hixl::Finalize);
	Use(&hixl::Hixl::RegisterMem);
	Use(&hixl::Hixl::DeregisterMem);
	Use(&hixl::Hixl::Connect);
	Use(&hixl::Hixl::Disconnect);
	Use(&hixl::Hixl::ConnectAsync);
	Use(&hixl::Hixl::DisconnectAsync);
	Use(static_cast<hixl::Status (hixl::Hixl::*)(const hixl::AscendString &, hixl::AsyncConnectStatus &)>(&hixl::Hixl::GetAsyncConnectStatus));
	Use(static_cast<hixl::Status (hixl::Hixl::*)(std::map<hixl::AscendString, hixl::AsyncConnectStatus> &)>(&hixl::Hixl::GetAsyncConnectStatus));
	Use(&hixl::Hixl::TransferSync);
	Use(&hixl::Hixl::TransferAsync);
	Use(static_cast<hixl::Status (hixl::Hixl::*)(const hixl::TransferReq &, hixl::TransferStatus &)>(&hixl::Hixl::GetTransferStatus));
	Use(static_cast<hixl::Status (hixl::Hixl::*)(const hixl::GetTransferStatusArgs &, std::vector<hixl::TransferResult> &)>(&hixl::Hixl::GetTransferStatus));
	Use(&hixl::Hixl::SendNotify);
	Use(&hixl::Hixl::GetNotifies);
	Use(&hixl::Hixl::GetCapability);

	delete new llm_datadist::LlmDataDist(0, llm_datadist::LlmRole::kPrompt);
	Use(&llm_datadist::LlmDataDist::Initialize);
	Use(&llm_datadist::LlmDataDist::Finalize);
	Use(&llm_datadist::LlmDataDist::SetRole);
	Use(&llm_datadist::LlmDataDist::LinkLlmClusters);
	Use(&llm_datadist::LlmDataDist::UnlinkLlmClusters);
	Use(&llm_datadist::LlmDataDist::AllocateCache);
	Use(&llm_datadist::LlmDataDist::DeallocateCache);
	Use(&llm_datadist::LlmDataDist::PullKvCache);
	Use(&llm_datadist::LlmDataDist::PullKvBlocks);
	Use(&llm_datadist::LlmDataDist::CopyKvCache);
	Use(&llm_datadist::LlmDataDist::CopyKvBlocks);
	Use(&llm_datadist::LlmDataDist::PushKvCache);
	Use(&llm_datadist::LlmDataDist::PushKvBlocks);
	Use(&llm_datadist::LlmDataDist::RegisterKvCache);
	Use(&llm_datadist::LlmDataDist::UnregisterKvCache);
}

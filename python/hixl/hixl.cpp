// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hixl.hixl: the extension module under the Python package "hixl", the
 * names of hixl's own Python package (hicann/hixl, src/python/hixl_py)
 * over memreg's engine through hixl::Hixl (<hixl/hixl.h>).
 *
 * Conventions, as hixl's package has them: a call returns a status code
 * (hixl.SUCCESS, hixl.PARAM_INVALID, ...), or a tuple whose first member
 * is one; nothing raises for a failed call (a wrong argument type raises
 * TypeError, as pybind11 does).  Memory handles and transfer requests are
 * ints.  Every call on an engine that is not initialized returns FAILED;
 * a second initialize returns SUCCESS and changes nothing; the engine is
 * finalized when the object goes.  The GIL is released while the engine
 * works, so a Python thread can wait in transfer_sync while others run.
 * docs/python.md lists what is covered and how it differs.
 */
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <hixl/hixl.h>

namespace py = pybind11;

namespace {

constexpr int32_t kTimeoutMs = 1000;

using StatusAnd = std::pair<hixl::Status, uintptr_t>;

/*
 * One engine.  The lock lets calls run side by side (the engine allows
 * that) while finalize, which tears the engine down, waits for them and
 * keeps new ones out.
 */
class Engine {
 public:
	Engine() = default;
	Engine(const Engine &) = delete;
	Engine &operator=(const Engine &) = delete;

	~Engine()
	{
		py::gil_scoped_release nogil;

		Finalize();
	}

	hixl::Status Initialize(const std::string &local_engine,
				const std::map<std::string, std::string> &options)
	{
		std::unique_lock<std::shared_mutex> lock(mu_);
		std::map<hixl::AscendString, hixl::AscendString> opts;

		if (engine_)
			return hixl::SUCCESS;
		for (const auto &kv : options)
			opts.emplace(hixl::AscendString(kv.first.data(), kv.first.size()),
				     hixl::AscendString(kv.second.data(), kv.second.size()));
		std::unique_ptr<hixl::Hixl> e(new hixl::Hixl());
		hixl::Status st = e->Initialize(
			hixl::AscendString(local_engine.data(), local_engine.size()),
			opts);

		if (st == hixl::SUCCESS)
			engine_ = std::move(e);
		return st;
	}

	void Finalize()
	{
		std::unique_ptr<hixl::Hixl> e;
		{
			std::unique_lock<std::shared_mutex> lock(mu_);

			e = std::move(engine_);
		}
		if (e)
			e->Finalize();
	}

	StatusAnd RegisterMem(const hixl::MemDesc &mem, hixl::MemType type)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		hixl::MemHandle h = nullptr;

		if (!engine_)
			return { hixl::FAILED, 0 };
		hixl::Status st = engine_->RegisterMem(mem, type, h);
		return { st, reinterpret_cast<uintptr_t>(h) };
	}

	hixl::Status DeregisterMem(uintptr_t handle)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);

		if (!engine_)
			return hixl::FAILED;
		return engine_->DeregisterMem(reinterpret_cast<hixl::MemHandle>(handle));
	}

	hixl::Status Connect(const std::string &remote, int32_t timeout)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);

		return engine_ ? engine_->Connect(Name(remote), timeout) :
				 hixl::FAILED;
	}

	hixl::Status Disconnect(const std::string &remote, int32_t timeout)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);

		return engine_ ? engine_->Disconnect(Name(remote), timeout) :
				 hixl::FAILED;
	}

	hixl::Status ConnectAsync(const std::string &remote, int32_t timeout)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);

		return engine_ ? engine_->ConnectAsync(Name(remote), timeout) :
				 hixl::FAILED;
	}

	hixl::Status DisconnectAsync(const std::string &remote, int32_t timeout)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);

		return engine_ ? engine_->DisconnectAsync(Name(remote), timeout) :
				 hixl::FAILED;
	}

	std::pair<hixl::Status, hixl::AsyncConnectStatus>
	GetAsyncConnectStatus(const std::string &remote)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		hixl::AsyncConnectStatus s = hixl::AsyncConnectStatus::NOT_CONNECT;

		if (!engine_)
			return { hixl::FAILED, s };
		hixl::Status st = engine_->GetAsyncConnectStatus(Name(remote), s);
		return { st, s };
	}

	std::pair<hixl::Status, std::map<std::string, hixl::AsyncConnectStatus>>
	GetAllAsyncConnectStatus()
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		std::map<hixl::AscendString, hixl::AsyncConnectStatus> all;
		std::map<std::string, hixl::AsyncConnectStatus> out;

		if (!engine_)
			return { hixl::FAILED, out };
		hixl::Status st = engine_->GetAsyncConnectStatus(all);
		for (const auto &kv : all)
			out.emplace(std::string(kv.first.GetString(),
						kv.first.GetLength()),
				    kv.second);
		return { st, out };
	}

	hixl::Status TransferSync(const std::string &remote, hixl::TransferOp op,
				  const std::vector<hixl::TransferOpDesc> &descs,
				  int32_t timeout)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);

		return engine_ ? engine_->TransferSync(Name(remote), op, descs,
						       timeout) :
				 hixl::FAILED;
	}

	StatusAnd TransferAsync(const std::string &remote, hixl::TransferOp op,
				const std::vector<hixl::TransferOpDesc> &descs,
				const hixl::TransferArgs &args)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		hixl::TransferReq req = nullptr;

		if (!engine_)
			return { hixl::FAILED, 0 };
		hixl::Status st = engine_->TransferAsync(Name(remote), op, descs,
							 args, req);
		return { st, reinterpret_cast<uintptr_t>(req) };
	}

	std::pair<hixl::Status, hixl::TransferStatus> GetTransferStatus(uintptr_t req)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		hixl::TransferStatus s = hixl::TransferStatus::FAILED;

		if (!engine_)
			return { hixl::FAILED, s };
		hixl::Status st = engine_->GetTransferStatus(
			reinterpret_cast<hixl::TransferReq>(req), s);
		return { st, s };
	}

	std::pair<hixl::Status, std::vector<hixl::TransferResult>>
	GetAllTransferStatus(const hixl::GetTransferStatusArgs &args)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		std::vector<hixl::TransferResult> results;

		if (!engine_)
			return { hixl::FAILED, results };
		hixl::Status st = engine_->GetTransferStatus(args, results);
		return { st, results };
	}

	hixl::Status SendNotify(const std::string &remote,
				const hixl::NotifyDesc &notify, int32_t timeout)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);

		return engine_ ? engine_->SendNotify(Name(remote), notify,
						     timeout) :
				 hixl::FAILED;
	}

	std::pair<hixl::Status, std::vector<hixl::NotifyDesc>> GetNotifies()
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		std::vector<hixl::NotifyDesc> notifies;

		if (!engine_)
			return { hixl::FAILED, notifies };
		hixl::Status st = engine_->GetNotifies(notifies);
		return { st, notifies };
	}

 private:
	static hixl::AscendString Name(const std::string &s)
	{
		return hixl::AscendString(s.data(), s.size());
	}

	std::shared_mutex mu_;
	std::unique_ptr<hixl::Hixl> engine_;
};

std::pair<hixl::Status, int32_t> GetCapability(hixl::FeatureType feature)
{
	int32_t value = hixl::FEATURE_NOT_SUPPORTED;
	hixl::Status st = hixl::Hixl::GetCapability(feature, value);

	return { st, value };
}

std::string Str(const hixl::AscendString &s)
{
	return std::string(s.GetString(), s.GetLength());
}

void AddConstants(py::module_ &m)
{
	const std::pair<const char *, hixl::Status> statuses[] = {
		{ "SUCCESS", hixl::SUCCESS },
		{ "PARAM_INVALID", hixl::PARAM_INVALID },
		{ "TIMEOUT", hixl::TIMEOUT },
		{ "NOT_CONNECTED", hixl::NOT_CONNECTED },
		{ "ALREADY_CONNECTED", hixl::ALREADY_CONNECTED },
		{ "NOTIFY_FAILED", hixl::NOTIFY_FAILED },
		{ "UNSUPPORTED", hixl::UNSUPPORTED },
		{ "FAILED", hixl::FAILED },
		{ "RESOURCE_EXHAUSTED", hixl::RESOURCE_EXHAUSTED },
	};
	const std::pair<const char *, const char *> options[] = {
		{ "OPTION_ENABLE_USE_FABRIC_MEM", hixl::OPTION_ENABLE_USE_FABRIC_MEM },
		{ "OPTION_RDMA_TRAFFIC_CLASS", hixl::OPTION_RDMA_TRAFFIC_CLASS },
		{ "OPTION_RDMA_SERVICE_LEVEL", hixl::OPTION_RDMA_SERVICE_LEVEL },
		{ "OPTION_BUFFER_POOL", hixl::OPTION_BUFFER_POOL },
		{ "OPTION_GLOBAL_RESOURCE_CONFIG", hixl::OPTION_GLOBAL_RESOURCE_CONFIG },
		{ "OPTION_AUTO_CONNECT", hixl::OPTION_AUTO_CONNECT },
		{ "OPTION_LOCAL_COMM_RES", hixl::OPTION_LOCAL_COMM_RES },
	};

	for (const auto &s : statuses)
		m.attr(s.first) = py::int_(s.second);
	for (const auto &o : options)
		m.attr(o.first) = py::str(o.second);
	m.attr("FEATURE_SUPPORTED") = py::int_(hixl::FEATURE_SUPPORTED);
	m.attr("FEATURE_NOT_SUPPORTED") = py::int_(hixl::FEATURE_NOT_SUPPORTED);
}

/*
 * hixl's package exports the values of MemType, TransferOp,
 * AsyncConnectStatus and FeatureType into the module too (hixl.MEM_DEVICE,
 * hixl.READ, hixl.CONNECTED, hixl.AUTO_CONNECT), not those of
 * TransferStatus, whose TIMEOUT and FAILED would hide the status codes.
 */
void AddEnums(py::module_ &m)
{
	py::enum_<hixl::MemType>(m, "MemType")
		.value("MEM_DEVICE", hixl::MEM_DEVICE)
		.value("MEM_HOST", hixl::MEM_HOST)
		.export_values();
	py::enum_<hixl::TransferOp>(m, "TransferOp")
		.value("READ", hixl::READ)
		.value("WRITE", hixl::WRITE)
		.export_values();
	py::enum_<hixl::TransferStatus>(m, "TransferStatus")
		.value("WAITING", hixl::TransferStatus::WAITING)
		.value("COMPLETED", hixl::TransferStatus::COMPLETED)
		.value("TIMEOUT", hixl::TransferStatus::TIMEOUT)
		.value("FAILED", hixl::TransferStatus::FAILED);
	py::enum_<hixl::AsyncConnectStatus>(m, "AsyncConnectStatus")
		.value("NOT_CONNECT", hixl::AsyncConnectStatus::NOT_CONNECT)
		.value("CONNECT_PENDING", hixl::AsyncConnectStatus::CONNECT_PENDING)
		.value("CONNECTING", hixl::AsyncConnectStatus::CONNECTING)
		.value("CONNECTED", hixl::AsyncConnectStatus::CONNECTED)
		.value("CONNECT_FAILED", hixl::AsyncConnectStatus::CONNECT_FAILED)
		.value("DISCONNECT_PENDING", hixl::AsyncConnectStatus::DISCONNECT_PENDING)
		.value("DISCONNECTING", hixl::AsyncConnectStatus::DISCONNECTING)
		.export_values();
	py::enum_<hixl::FeatureType>(m, "FeatureType")
		.value("AUTO_CONNECT", hixl::AUTO_CONNECT)
		.value("CLIENT_SERVER_COMM", hixl::CLIENT_SERVER_COMM)
		.export_values();
}

/* The descriptor structs, with their C++ field names as attributes. */
void AddStructs(py::module_ &m)
{
	py::class_<hixl::MemDesc>(m, "MemDesc")
		.def(py::init([](uintptr_t addr, size_t len) {
			     hixl::MemDesc d{};

			     d.addr = addr;
			     d.len = len;
			     return d;
		     }),
		     py::arg("addr"), py::arg("len"))
		.def_readwrite("addr", &hixl::MemDesc::addr)
		.def_readwrite("len", &hixl::MemDesc::len)
		.def("__repr__", [](const hixl::MemDesc &d) {
			return "MemDesc(addr=" + std::to_string(d.addr) +
			       ", len=" + std::to_string(d.len) + ")";
		});

	py::class_<hixl::TransferOpDesc>(m, "TransferOpDesc")
		.def(py::init([](uintptr_t local, uintptr_t remote, size_t len) {
			     return hixl::TransferOpDesc{ local, remote, len };
		     }),
		     py::arg("local_addr"), py::arg("remote_addr"), py::arg("len"))
		.def_readwrite("local_addr", &hixl::TransferOpDesc::local_addr)
		.def_readwrite("remote_addr", &hixl::TransferOpDesc::remote_addr)
		.def_readwrite("len", &hixl::TransferOpDesc::len);

	/* user_data is an int: hixl hands it back with the request. */
	py::class_<hixl::TransferArgs>(m, "TransferArgs")
		.def(py::init<>())
		.def_property(
			"user_data",
			[](const hixl::TransferArgs &a) {
				return reinterpret_cast<uintptr_t>(a.user_data);
			},
			[](hixl::TransferArgs &a, uintptr_t v) {
				a.user_data = reinterpret_cast<const void *>(v);
			});

	py::class_<hixl::GetTransferStatusArgs>(m, "GetTransferStatusArgs")
		.def(py::init([](uint32_t max_query_count, bool skip_waiting) {
			     hixl::GetTransferStatusArgs a;

			     a.max_query_count = max_query_count;
			     a.skip_waiting = skip_waiting;
			     return a;
		     }),
		     py::arg("max_query_count") = UINT32_MAX,
		     py::arg("skip_waiting") = false)
		.def_readwrite("max_query_count",
			       &hixl::GetTransferStatusArgs::max_query_count)
		.def_readwrite("skip_waiting",
			       &hixl::GetTransferStatusArgs::skip_waiting);

	py::class_<hixl::TransferResult>(m, "TransferResult")
		.def(py::init<>())
		.def_property(
			"req",
			[](const hixl::TransferResult &r) {
				return reinterpret_cast<uintptr_t>(r.req);
			},
			[](hixl::TransferResult &r, uintptr_t v) {
				r.req = reinterpret_cast<hixl::TransferReq>(v);
			})
		.def_property(
			"user_data",
			[](const hixl::TransferResult &r) {
				return reinterpret_cast<uintptr_t>(r.user_data);
			},
			[](hixl::TransferResult &r, uintptr_t v) {
				r.user_data = reinterpret_cast<const void *>(v);
			})
		.def_readonly("status", &hixl::TransferResult::status);

	/* Strings of any bytes the engine carries (at most 1024 each). */
	py::class_<hixl::NotifyDesc>(m, "NotifyDesc")
		.def(py::init([](const std::string &name, const std::string &msg) {
			     return hixl::NotifyDesc{
				     hixl::AscendString(name.data(), name.size()),
				     hixl::AscendString(msg.data(), msg.size()) };
		     }),
		     py::arg("name"), py::arg("notify_msg"))
		.def_property(
			"name",
			[](const hixl::NotifyDesc &n) { return Str(n.name); },
			[](hixl::NotifyDesc &n, const std::string &s) {
				n.name = hixl::AscendString(s.data(), s.size());
			})
		.def_property(
			"notify_msg",
			[](const hixl::NotifyDesc &n) { return Str(n.notify_msg); },
			[](hixl::NotifyDesc &n, const std::string &s) {
				n.notify_msg = hixl::AscendString(s.data(), s.size());
			});
}

void AddEngine(py::module_ &m)
{
	using nogil = py::call_guard<py::gil_scoped_release>;

	py::class_<Engine>(m, "Hixl")
		.def(py::init<>())
		.def("initialize", &Engine::Initialize, py::arg("local_engine"),
		     py::arg("options") = std::map<std::string, std::string>(),
		     nogil())
		.def("finalize", &Engine::Finalize, nogil())
		/* Positional only, as hixl's binding names no arguments here. */
		.def("register_mem", &Engine::RegisterMem, nogil())
		.def("deregister_mem", &Engine::DeregisterMem, nogil())
		.def("connect", &Engine::Connect, py::arg("remote_engine"),
		     py::arg("timeout_in_millis") = kTimeoutMs, nogil())
		.def("disconnect", &Engine::Disconnect, py::arg("remote_engine"),
		     py::arg("timeout_in_millis") = kTimeoutMs, nogil())
		.def("connect_async", &Engine::ConnectAsync,
		     py::arg("remote_engine"),
		     py::arg("timeout_in_millis") = kTimeoutMs, nogil())
		.def("disconnect_async", &Engine::DisconnectAsync,
		     py::arg("remote_engine"),
		     py::arg("timeout_in_millis") = kTimeoutMs, nogil())
		.def("get_async_connect_status", &Engine::GetAsyncConnectStatus,
		     nogil())
		.def("get_all_async_connect_status",
		     &Engine::GetAllAsyncConnectStatus, nogil())
		.def("transfer_sync", &Engine::TransferSync,
		     py::arg("remote_engine"), py::arg("op"), py::arg("op_descs"),
		     py::arg("timeout_in_millis") = kTimeoutMs, nogil())
		.def("transfer_async", &Engine::TransferAsync,
		     py::arg("remote_engine"), py::arg("op"), py::arg("op_descs"),
		     py::arg("args") = hixl::TransferArgs(), nogil())
		.def("get_transfer_status", &Engine::GetTransferStatus, nogil())
		.def("get_all_transfer_status", &Engine::GetAllTransferStatus,
		     py::arg("args") = hixl::GetTransferStatusArgs(), nogil())
		.def("send_notify", &Engine::SendNotify, py::arg("remote_engine"),
		     py::arg("notify"), py::arg("timeout_in_millis") = kTimeoutMs,
		     nogil())
		.def("get_notifies", &Engine::GetNotifies, nogil());

	m.def("get_capability", &GetCapability, py::arg("feature_type"),
	      nogil());
}

}  // namespace

PYBIND11_MODULE(hixl, m)
{
	m.doc() = "hixl's Python API over memreg's engine (docs/python.md)";
	AddConstants(m);
	AddEnums(m);
	AddStructs(m);
	AddEngine(m);
}

// ADXL linked as through CANN's library (libcann_hixl.so).
#include <cstdio>
#include "adxl/adxl_engine.h"

int main()
{
    int32_t value = 0;
    adxl::Status status = adxl::AdxlEngine::GetCapability(adxl::AUTO_CONNECT, value);
    std::printf("%s adxl::AdxlEngine::GetCapability(AUTO_CONNECT) (status %d)\n",
                status == adxl::SUCCESS ? "ok" : "FAIL", static_cast<int>(status));
    return status == adxl::SUCCESS ? 0 : 1;
}

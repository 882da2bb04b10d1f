# ADXL test programs, linked with libcann_hixl.so (include/adxl, lib/adxl)
# and libmemreg.so, whose C API they also call.
#   adxl_peer    one engine of the multi-process transfer tests
#   adxl_fanin   one engine reading from several peers at once
#   adxl_cases   the reference's status cases and refusals (cmocka)
#   adxl_restart a peer killed and started again at its name and addresses
PROGS	+= adxl_peer adxl_fanin adxl_cases adxl_restart
adxl_peer_OBJS	:= adxl_testlib.o
adxl_peer_LIBS	:= $(HIXL) $(MEMREG)
adxl_fanin_OBJS	:= adxl_testlib.o
adxl_fanin_LIBS	:= $(HIXL) $(MEMREG)
adxl_restart_OBJS := adxl_testlib.o
adxl_restart_LIBS := $(HIXL) $(MEMREG)
adxl_cases_OBJS	:= adxl_testlib.o
adxl_cases_LIBS	:= $(HIXL) $(MEMREG) -lcmocka

# ADXL test programs, linked with libmemreg (include/adxl, lib/adxl).
#   adxl_peer    one engine of the multi-process transfer tests
#   adxl_cases   the reference's status cases and refusals (cmocka)
PROGS	+= adxl_peer adxl_cases
ADXL_CFLAGS := -I$(TOP)/include -pthread
ADXL_HDRS := $(wildcard $(TOP)/include/adxl/*.h) adxl_testlib.h

$(OBJ)/adxl_%.o: adxl_%.c $(ADXL_HDRS)
	@mkdir -p $(OBJ)
	$(CC) $(CFLAGS) $(ADXL_CFLAGS) -c -o $@ $<

$(OUT)/adxl_peer: $(OBJ)/adxl_peer.o $(OBJ)/adxl_testlib.o $(BUILD)/lib/libmemreg.so
	@mkdir -p $(OUT)
	$(CC) -o $@ $(OBJ)/adxl_peer.o $(OBJ)/adxl_testlib.o -pthread \
		-L$(BUILD)/lib -lmemreg

$(OUT)/adxl_cases: $(OBJ)/adxl_cases.o $(OBJ)/adxl_testlib.o $(BUILD)/lib/libmemreg.so
	@mkdir -p $(OUT)
	$(CC) -o $@ $(OBJ)/adxl_cases.o $(OBJ)/adxl_testlib.o -pthread \
		-L$(BUILD)/lib -lmemreg -lcmocka

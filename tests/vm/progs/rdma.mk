# Programs on libibverbs, built where its headers are (libibverbs-dev, as
# for lib/rdma): they run where an rxe device is up (cases/rdma_pair.sh).
#   rdma_devmr   memreg device memory in an RDMA memory region (cmocka)
#   rdma_grants  what a peer may reach: the RDMA plugin's grants (cmocka)
ifeq ($(shell pkg-config --exists libibverbs && echo yes),yes)
PROGS	+= rdma_devmr rdma_grants
rdma_devmr_OBJS	:= memtest.o
rdma_devmr_LIBS	:= -lcmocka $(shell pkg-config --libs libibverbs)
rdma_grants_OBJS := memtest.o
rdma_grants_LIBS := -lcmocka -ldl
endif

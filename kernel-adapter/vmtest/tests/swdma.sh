# Guest test: copier_swdma.ko offers DMA_MEMCPY channels and they copy
# correctly (copier_swdma_test.ko's cases), then both modules unload.
set -e
insmod copier_swdma.ko nr_chans=2
ls /sys/class/dma/ | grep -q dma
insmod copier_swdma_test.ko
dmesg | grep 'swdma_test: PASS'
rmmod copier_swdma_test
rmmod copier_swdma
! ls /sys/class/dma/ 2>/dev/null | grep -q .

set terminal svg size 720,420 font 'sans,12'
set output 'bench/scale/redlock.svg'
set title "Redlock cycle vs masters (250 µs each way)"
set xlabel "masters"
set ylabel "ms per cycle"
set grid
set key top left
set yrange [0:*]
plot "bench/scale/redlock.tsv" using 1:2 with linespoints title "tryLock + release p50"

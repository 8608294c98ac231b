set terminal svg size 720,420 font 'sans,12'
set output 'bench/scale/permits.svg'
set title "Semaphore acquire+release vs permits held"
set xlabel "permits held"
set ylabel "µs"
set grid
set key top left
set logscale x
set yrange [0:*]
plot "bench/scale/permits.tsv" using 1:2 with linespoints title "client µs per cycle", "bench/scale/permits.tsv" using 1:3 with linespoints title "server CPU µs per cycle"

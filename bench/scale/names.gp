set terminal svg size 720,420 font 'sans,12'
set output 'bench/scale/names.svg'
set title "Uncontended cycle vs distinct names"
set xlabel "distinct names"
set ylabel "µs per cycle"
set grid
set key top left
set logscale x
set yrange [0:*]
plot "bench/scale/names.tsv" using 1:2 with linespoints title "client µs per cycle", "bench/scale/names.tsv" using 1:3 with linespoints title "server CPU µs per cycle"

set terminal svg size 720,420 font 'sans,12'
set output 'bench/scale/clients-100.svg'
set title "Acquisitions per second, 100 names"
set xlabel "client processes"
set ylabel "acquisitions/s"
set grid
set key top left
set logscale x
set yrange [0:*]
plot "bench/scale/clients-100.tsv" using 1:2 with linespoints title "distlock", "bench/scale/clients-100.tsv" using 1:3 with linespoints title "phpredis", "bench/scale/clients-100.tsv" using 1:4 with linespoints title "laravel", "bench/scale/clients-100.tsv" using 1:5 with linespoints title "symfony"

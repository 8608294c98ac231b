<?php
// A minimal Laravel application (classic bootstrap, valid on Laravel 8 to 12):
// the scratch app the test command creates copies this folder and adds
// composer.json + vendor/, so that package auto-discovery registers distlock.
$app = new Illuminate\Foundation\Application(dirname(__DIR__));
$app->singleton(Illuminate\Contracts\Http\Kernel::class, Illuminate\Foundation\Http\Kernel::class);
$app->singleton(Illuminate\Contracts\Console\Kernel::class, App\Console\Kernel::class);
$app->singleton(Illuminate\Contracts\Debug\ExceptionHandler::class, Illuminate\Foundation\Exceptions\Handler::class);
return $app;

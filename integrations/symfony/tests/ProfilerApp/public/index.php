<?php

declare(strict_types=1);

// Front controller of the profiler test application, for `php -S` (router
// script): APP_ENV 'dev' (default; profiler and toolbar) or 'prod'.

use DistLock\Symfony\Tests\ProfilerApp\Kernel;
use Symfony\Component\HttpFoundation\Request;

require __DIR__ . '/../../bootstrap.php';

$env = getenv('APP_ENV') ?: 'dev';
$kernel = new Kernel($env, $env === 'dev');
$request = Request::createFromGlobals();
$response = $kernel->handle($request);
$response->send();
$kernel->terminate($request, $response);

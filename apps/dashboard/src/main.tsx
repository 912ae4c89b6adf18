// Entry: mounts the app into #app (index.html). Served at /dashboard/ by the gateway (DESIGN.md D1).
import { render } from 'preact';
import { App } from './App.js';
import './styles.css';

render(<App />, document.getElementById('app')!);

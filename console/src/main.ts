import { startConsole } from "./shell.ts";
import "./styles.css";

void startConsole(document.getElementById("app")!);

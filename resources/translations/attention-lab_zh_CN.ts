<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>attn</name>
    <message>
        <location filename="../../core/io/atomicwrite.cpp" line="+205" />
        <source>no file name was given</source>
        <translation>未指定文件名</translation>
    </message>
    <message>
        <location line="+14" />
        <location line="+141" />
        <source>it is a folder</source>
        <translation>这是一个文件夹</translation>
    </message>
    <message>
        <location line="-139" />
        <source>it is not a regular file</source>
        <translation>这不是普通文件</translation>
    </message>
    <message>
        <location line="+73" />
        <location line="+131" />
        <source>the data to write could not be made</source>
        <translation>要写入的数据无法生成</translation>
    </message>
    <message>
        <location line="-94" />
        <source>the system gave no reason</source>
        <translation>系统没有给出原因</translation>
    </message>
    <message>
        <location line="+3" />
        <source>no space left on the device</source>
        <translation>设备上没有剩余空间</translation>
    </message>
    <message>
        <location line="+4" />
        <source>the file is too large</source>
        <translation>文件太大</translation>
    </message>
    <message>
        <location line="+4" />
        <source>the disk quota is used up</source>
        <translation>磁盘配额已用完</translation>
    </message>
    <message>
        <location line="+4" />
        <source>permission denied</source>
        <translation>权限不足</translation>
    </message>
    <message>
        <location line="+3" />
        <source>the file system is read-only</source>
        <translation>文件系统是只读的</translation>
    </message>
    <message>
        <location line="+3" />
        <source>an input/output error (the disk or the connection to it failed)</source>
        <translation>输入/输出错误（磁盘或与磁盘的连接出错）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>the file or folder does not exist</source>
        <translation>文件或文件夹不存在</translation>
    </message>
    <message>
        <location line="+3" />
        <source>a part of the path is not a folder</source>
        <translation>路径中的某一部分不是文件夹</translation>
    </message>
    <message>
        <location line="+5" />
        <source>the name is too long</source>
        <translation>名称太长</translation>
    </message>
    <message>
        <location line="+3" />
        <source>too many files are open</source>
        <translation>打开的文件太多</translation>
    </message>
    <message>
        <location line="+2" />
        <source>it is closed</source>
        <translation>它已关闭</translation>
    </message>
    <message>
        <location line="+2" />
        <source>the reader went away (broken pipe)</source>
        <translation>读取方已断开（管道破裂）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>a file of that name already exists</source>
        <translation>同名文件已存在</translation>
    </message>
    <message>
        <location line="+3" />
        <source>too many symbolic links</source>
        <translation>符号链接层数太多</translation>
    </message>
    <message>
        <location line="+4" />
        <source>the file is in use</source>
        <translation>文件正在使用中</translation>
    </message>
    <message>
        <location line="+3" />
        <source>out of memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <location line="+6" />
        <source>error number %1</source>
        <translation>错误号 %1</translation>
    </message>
    <message>
        <location line="+72" />
        <source>%1: replaced a symbolic link to %2 (%2 itself was not touched)</source>
        <translation>%1：替换了指向 %2 的符号链接（%2 本身未被改动）</translation>
    </message>
    <message>
        <location line="-159" />
        <location line="+127" />
        <location line="+26" />
        <source>there was nothing to write</source>
        <translation>没有可写入的内容</translation>
    </message>
    <message>
        <location line="-50" />
        <source>the folder %1 does not exist</source>
        <translation>文件夹 %1 不存在</translation>
    </message>
</context>
<context>
    <name>attn::AllHeadsView</name>
    <message>
        <location filename="../../app/views/stageviews.cpp" line="+346" />
        <source>Head %1: click to show it in every map</source>
        <translation>头 %1：点击后所有热图都显示这个头</translation>
    </message>
    <message>
        <location line="+7" />
        <source>▶ head %1 (shown)</source>
        <translation>▶ 头 %1（显示中）</translation>
    </message>
</context>
<context>
    <name>attn::ClassroomMode</name>
    <message>
        <location filename="../../app/modes/classroommode.cpp" line="+42" />
        <source>&amp;Steps</source>
        <translation>逐步(&amp;S)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Online softmax</source>
        <translation>在线 softmax(&amp;O)</translation>
    </message>
    <message>
        <location line="+7" />
        <source>&amp;Guess</source>
        <translation>猜测(&amp;G)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Lesson notes</source>
        <translation>课程笔记</translation>
    </message>
    <message>
        <location line="+44" />
        <source>&amp;Classroom</source>
        <translation>课堂(&amp;C)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Classroom</source>
        <translation>课堂</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Step through</source>
        <translation>逐步演示(&amp;S)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Step through the chain one stage at a time (F6); Left/Right or Page Up/Down step, Home/End jump</source>
        <translation>一次一步地演示整条计算链（F6）；左/右方向键或 Page Up/Down 前后一步，Home/End 跳到首尾</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Steps</source>
        <translation>逐步</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Previous step</source>
        <translation>上一步</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Next step</source>
        <translation>下一步</translation>
    </message>
    <message>
        <location line="+0" />
        <source>First step</source>
        <translation>第一步</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Last step</source>
        <translation>最后一步</translation>
    </message>
    <message>
        <location line="+15" />
        <source>&amp;Hide the answers</source>
        <translation>隐藏答案(&amp;H)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Predict, then reveal: weights and outputs show neither numbers nor colours (F7)</source>
        <translation>先预测，再揭晓：权重和输出既不显示数字也不显示颜色（F7）</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Hide</source>
        <translation>隐藏</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Hide the scaled scores too</source>
        <translation>也隐藏缩放后的分数</translation>
    </message>
    <message>
        <location line="+3" />
        <source>&amp;Guess the row</source>
        <translation>猜这一行(&amp;G)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Guess</source>
        <translation>猜测</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Online softmax, tile by tile</source>
        <translation>在线 softmax，逐块计算(&amp;O)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>The weights as FlashAttention computes them: keys in tiles, a running maximum, sum and output</source>
        <translation>像 FlashAttention 那样计算权重：键分块读取，保留运行中的最大值、和与输出</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Lesson &amp;notes</source>
        <translation>课程笔记(&amp;N)</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Notes</source>
        <translation>笔记</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Quiz…</source>
        <translation>测验(&amp;Q)…</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Quiz</source>
        <translation>测验</translation>
    </message>
    <message>
        <location line="+2" />
        <location line="+41" />
        <source>Start a class &amp;session</source>
        <translation>开始课堂互动(&amp;S)</translation>
    </message>
    <message>
        <location line="-33" />
        <source>Students answer from their phones' browsers on the classroom's network</source>
        <translation>学生在教室网络中用手机浏览器作答</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;End the class session</source>
        <translation>结束课堂互动(&amp;E)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Session</source>
        <translation>互动</translation>
    </message>
    <message>
        <location line="+7" />
        <source>Class session</source>
        <translation>课堂互动</translation>
    </message>
    <message>
        <location line="+22" />
        <source>Class &amp;session</source>
        <translation>课堂互动(&amp;S)</translation>
    </message>
    <message>
        <location line="+17" />
        <source>Class session %1 · students: %2</source>
        <translation>课堂互动 %1 · 学生：%2</translation>
    </message>
    <message>
        <location line="+16" />
        <source>Save the class's tallies</source>
        <translation>保存全班的答题统计</translation>
    </message>
    <message>
        <location line="+1" />
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location line="+139" />
        <source>Quiz setting</source>
        <translation>测验设置</translation>
    </message>
</context>
<context>
    <name>attn::CompareMode</name>
    <message>
        <location filename="../../app/modes/comparemode.cpp" line="+98" />
        <source>Export the A/B figure…</source>
        <translation>导出 A/B 图…</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Export the difference map…</source>
        <translation>导出差值图…</translation>
    </message>
    <message>
        <location line="+10" />
        <source>Export the difference map</source>
        <translation>导出差值图</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Export the A/B figure</source>
        <translation>导出 A/B 图</translation>
    </message>
    <message>
        <location line="+2" />
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <location line="+13" />
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <location line="+55" />
        <source>Changed lesson</source>
        <translation>课程已修改</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1 has changes. Keep it as A, to compare with the lesson you open?</source>
        <translation>%1 已有修改。要把它保留为 A，与要打开的课程对比吗？</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Keep as A</source>
        <translation>保留为 A</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Just switch</source>
        <translation>直接切换</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Save a copy…</source>
        <translation>另存副本…</translation>
    </message>
    <message>
        <location line="+17" />
        <source>&amp;Compare</source>
        <translation>对比(&amp;C)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Pin as A</source>
        <translation>固定为 A(&amp;P)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Pin the current state as A; keep changing the document (B) and compare them side by side</source>
        <translation>把当前状态固定为 A；继续修改文档（B），并排对比两者</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Unpin (back to A)</source>
        <translation>取消固定（回到 A）(&amp;U)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Show A/B</source>
        <translation>显示 A/B</translation>
    </message>
    <message>
        <location line="+23" />
        <source>A/B</source>
        <translation>A/B</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Pin A</source>
        <translation>固定 A</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Unpin</source>
        <translation>取消固定</translation>
    </message>
</context>
<context>
    <name>attn::CompareText</name>
    <message>
        <location filename="../../widgets/comparefigure.cpp" line="+30" />
        <source>row sum</source>
        <translation>行和</translation>
    </message>
    <message>
        <location line="+52" />
        <source>A · %1%2</source>
        <translation>A · %1%2</translation>
    </message>
    <message>
        <location line="+1" />
        <source>B · %1%2</source>
        <translation>B · %1%2</translation>
    </message>
    <message>
        <location line="+1" />
        <source> · in A's token order</source>
        <translation> · 按 A 的词序</translation>
    </message>
    <message>
        <location line="+33" />
        <source>B − A</source>
        <translation>B − A</translation>
    </message>
    <message>
        <location line="+8" />
        <source> at (%1, %2)</source>
        <translation>，位于 (%1, %2)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>max |B − A| = %1%2</source>
        <translation>最大 |B − A| = %1%2</translation>
    </message>
    <message>
        <location line="+5" />
        <source>A and B cannot be compared cell by cell here: %1</source>
        <translation>A 与 B 在这里无法逐格比较：%1</translation>
    </message>
    <message>
        <location line="+3" />
        <source>B − A · %1</source>
        <translation>B − A · %1</translation>
    </message>
    <message>
        <location line="+3" />
        <source>the same numbers, reordered: attention alone cannot see word order</source>
        <translation>同样的数，只是重新排列：注意力本身看不出语序</translation>
    </message>
    <message>
        <location line="+12" />
        <source>%1 (%2, %3)</source>
        <translation>%1 (%2, %3)</translation>
    </message>
    <message>
        <location line="+4" />
        <source>not only reordered: the largest difference is %1 in %2</source>
        <translation>不只是重新排列：最大差值为 %1，在 %2</translation>
    </message>
    <message>
        <location line="+3" />
        <source>cannot align by token: %1</source>
        <translation>无法按词对齐：%1</translation>
    </message>
    <message>
        <location line="-28" />
        <source> (rounding only)</source>
        <translation>（仅为舍入误差）</translation>
    </message>
</context>
<context>
    <name>attn::CompareView</name>
    <message>
        <location filename="../../app/views/compareview.cpp" line="+72" />
        <source>Align by token</source>
        <translation>按词对齐</translation>
    </message>
    <message>
        <location line="+1" />
        <source>B holds A's tokens in another order: put B's rows and columns in A's order, so that the same word is compared with the same word</source>
        <translation>B 以另一种顺序包含 A 的词：把 B 的行与列排成 A 的顺序，让同一个词与同一个词比较</translation>
    </message>
    <message>
        <location line="+2" />
        <source>The stage shown for A, B and B − A</source>
        <translation>A、B 和 B − A 显示的阶段</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Pin B as A</source>
        <translation>把 B 固定为 A</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Make the live document the new A</source>
        <translation>把当前文档作为新的 A</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Unpin (back to A)</source>
        <translation>取消固定（回到 A）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Put the document back as A was (one undo step) and close the comparison</source>
        <translation>把文档恢复为 A（一步可撤销）并关闭对比</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Keep B</source>
        <translation>保留 B</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Close the comparison and keep the document as it is</source>
        <translation>关闭对比，文档保持现状</translation>
    </message>
    <message>
        <location line="+23" />
        <source>Pinned as A: %1. Change the document (B) and compare.</source>
        <translation>已固定为 A：%1。修改文档（B）并对比。</translation>
    </message>
    <message>
        <location line="+15" />
        <source>Back to A</source>
        <translation>回到 A</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Unpinned: the document is A again</source>
        <translation>已取消固定：文档恢复为 A</translation>
    </message>
    <message>
        <location line="+86" />
        <source>Nothing pinned. Pin the current state as A (Ctrl+Shift+P), change the document, and A, B and B − A appear here.</source>
        <translation>尚未固定。把当前状态固定为 A（Ctrl+Shift+P），再修改文档，A、B 和 B − A 就会显示在这里。</translation>
    </message>
    <message>
        <location line="+18" />
        <source>&lt;b&gt;A&lt;/b&gt;: %1 (pinned) · &lt;b&gt;B&lt;/b&gt;: %2 (live)</source>
        <translation>&lt;b&gt;A&lt;/b&gt;：%1（已固定） · &lt;b&gt;B&lt;/b&gt;：%2（当前）</translation>
    </message>
    <message>
        <location line="+3" />
        <source>A and B hold the same tokens in another order: align by token to compare word with word.</source>
        <translation>A 与 B 含有相同的词但顺序不同：按词对齐即可逐词比较。</translation>
    </message>
    <message>
        <location line="-158" />
        <source>Settings to both</source>
        <translation>设置同时用于 A 和 B</translation>
    </message>
    <message>
        <location line="+1" />
        <source>A setting changed in B (encoding, mask, scale, τ, …) is changed in A too, so that B − A still shows only what A and B were pinned to differ in</source>
        <translation>在 B 中改动的设置（编码、掩码、缩放、τ 等）也同样改到 A 上，这样 B − A 仍只显示 A 与 B 固定时原本的差别</translation>
    </message>
    <message>
        <location line="+119" />
        <source>the defaults</source>
        <translation>默认设置</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Their settings differ, so B − A shows that as well: A has %1; B has %2.</source>
        <extracomment>The settings of A and of B, when they differ.</extracomment>
        <translation>两者的设置不同，所以 B − A 也包含设置带来的差别：A 为 %1；B 为 %2。</translation>
    </message>
</context>
<context>
    <name>attn::CostPanel</name>
    <message>
        <location filename="../../app/views/costpanel.cpp" line="+255" />
        <source>Attention: every token reaches every other in 1 step, all pairs at once</source>
        <translation>注意力：任意两个词之间 1 步直达，所有词对同时计算</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Stage</source>
        <translation>步骤</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Work</source>
        <translation>计算量</translation>
    </message>
    <message>
        <location line="-8" />
        <source>Recurrent network: from the first token to the last, n − 1 = %1 steps, one token at a time</source>
        <translation>循环网络：从第一个词到最后一个词要走 n − 1 = %1 步，一次一个词</translation>
    </message>
    <message>
        <location line="-41" />
        <source>Double the tokens to %1</source>
        <translation>把词数加倍到 %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Double the queries to %1 and the keys to %2</source>
        <translation>把查询加倍到 %1、键加倍到 %2</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&lt;b&gt;%1 score cells&lt;/b&gt; = h·n&lt;sub&gt;q&lt;/sub&gt;·n&lt;sub&gt;k&lt;/sub&gt; = %2·%3·%4: one for every pair of a query and a key, in every head. %5 and there are %6 (×%7): the cost grows as n². All stages together: %8 operations (multiply-adds and the softmax's steps), %9 stored.</source>
        <translation>&lt;b&gt;%1 个打分格&lt;/b&gt; = h·n&lt;sub&gt;q&lt;/sub&gt;·n&lt;sub&gt;k&lt;/sub&gt; = %2·%3·%4：每个头里，每一对查询与键各一格。%5，就有 %6 格（×%7）：代价按 n² 增长。所有步骤合计：%8 次运算（乘加与 softmax 的各步），存储 %9。</translation>
    </message>
    <message>
        <location line="+46" />
        <source>Values stored</source>
        <translation>存储的数值</translation>
    </message>
    <message>
        <location line="+7" />
        <source>Q, K, V = X W</source>
        <translation>Q、K、V = X W</translation>
    </message>
    <message>
        <location line="+1" />
        <source>(n_q + n_k)·d_model·h·d_k + n_k·d_model·h·d_v products</source>
        <translation>(n_q + n_k)·d_model·h·d_k + n_k·d_model·h·d_v 次乘法</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Scores q·k</source>
        <translation>打分 q·k</translation>
    </message>
    <message>
        <location line="+1" />
        <source>h·n_q·n_k·d_k = %1·%2 products</source>
        <translation>h·n_q·n_k·d_k = %1·%2 次乘法</translation>
    </message>
    <message>
        <location line="+2" />
        <source>, plus the norms</source>
        <translation>，另加范数</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Scaled</source>
        <translation>缩放</translation>
    </message>
    <message>
        <location line="+1" />
        <source>one division a cell: %1</source>
        <translation>每格一次除法：%1</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Mask</source>
        <translation>掩码</translation>
    </message>
    <message>
        <location line="+1" />
        <source>one test a cell: %1</source>
        <translation>每格一次判断：%1</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Softmax</source>
        <translation>Softmax</translation>
    </message>
    <message>
        <location line="+1" />
        <source>subtract the max, e^x, divide: 3·%1</source>
        <translation>减最大值、取 e^x、相除：3·%1</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Output = weights·V</source>
        <translation>输出 = 权重·V</translation>
    </message>
    <message>
        <location line="+1" />
        <source>h·n_q·n_k·d_v = %1·%2 products</source>
        <translation>h·n_q·n_k·d_v = %1·%2 次乘法</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Concat · W_O</source>
        <translation>拼接 · W_O</translation>
    </message>
    <message>
        <location line="+1" />
        <source>n_q·h·d_v·d_out products</source>
        <translation>n_q·h·d_v·d_out 次乘法</translation>
    </message>
    <message>
        <location line="+15" />
        <source>Total</source>
        <translation>合计</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1 of memory as doubles</source>
        <translation>按双精度计占内存 %1</translation>
    </message>
    <message>
        <location line="+63" />
        <source>now: n_q·n_k = %1·%2</source>
        <translation>当前：n_q·n_k = %1·%2</translation>
    </message>
    <message>
        <location line="+28" />
        <location line="+10" />
        <source>score cells h·n²</source>
        <translation>打分格 h·n²</translation>
    </message>
    <message>
        <location line="-5" />
        <location line="+9" />
        <source>a recurrent network's steps, h·n</source>
        <translation>循环网络的步数 h·n</translation>
    </message>
    <message>
        <location line="-43" />
        <source>now: n = %1</source>
        <translation>当前：n = %1</translation>
    </message>
    <message>
        <location line="+65" />
        <source>tokens n</source>
        <translation>词数 n</translation>
    </message>
    <message>
        <location line="-202" />
        <source>&lt;b&gt;Open under the mask: %1&lt;/b&gt; of the %2 cells (%3 %).</source>
        <translation>&lt;b&gt;掩码下开放：%1&lt;/b&gt; 格，共 %2 格（%3 %）。</translation>
    </message>
    <message>
        <location line="+5" />
        <source>A window of W = %1 keeps about n·(2W − 1) cells a head: it grows as n·W, not n²; a kernel that skips the blocked cells does that much work.</source>
        <translation>宽度 W = %1 的窗口每个头约保留 n·(2W − 1) 格：按 n·W 增长，而不是 n²；跳过被遮挡格子的计算核只做这么多工作。</translation>
    </message>
    <message>
        <location line="+89" />
        <source>&lt;b&gt;Parameters: none.&lt;/b&gt; In direct mode Q, K and V are given as they are: there is no W&lt;sub&gt;Q&lt;/sub&gt;, W&lt;sub&gt;K&lt;/sub&gt;, W&lt;sub&gt;V&lt;/sub&gt; to learn. Only the score matrix grows with n.</source>
        <translation>&lt;b&gt;参数：无。&lt;/b&gt;直接模式下 Q、K、V 是直接给定的：没有要学习的 W&lt;sub&gt;Q&lt;/sub&gt;、W&lt;sub&gt;K&lt;/sub&gt;、W&lt;sub&gt;V&lt;/sub&gt;。随 n 增长的只有分数矩阵。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>W&lt;sub&gt;Q&lt;/sub&gt; %1×%2 = %3, W&lt;sub&gt;K&lt;/sub&gt; %1×%2 = %4, W&lt;sub&gt;V&lt;/sub&gt; %1×%5 = %6</source>
        <translation>W&lt;sub&gt;Q&lt;/sub&gt; %1×%2 = %3，W&lt;sub&gt;K&lt;/sub&gt; %1×%2 = %4，W&lt;sub&gt;V&lt;/sub&gt; %1×%5 = %6</translation>
    </message>
    <message>
        <location line="+8" />
        <source>, W&lt;sub&gt;O&lt;/sub&gt; %1×%2 = %3</source>
        <translation>，W&lt;sub&gt;O&lt;/sub&gt; %1×%2 = %3</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&lt;b&gt;Parameters: %1&lt;/b&gt; (%2), the same for every n: the weights are learned once and shared by every token, while the score cells grow as n².</source>
        <translation>&lt;b&gt;参数：%1&lt;/b&gt;（%2），对任何 n 都一样：权重只学一次，所有词元共享；而分数格子按 n² 增长。</translation>
    </message>
    <message>
        <location line="+7" />
        <source>&lt;b&gt;%1&lt;/b&gt;: %2 parameters at every n (embeddings %3, attention %4, MLP %5, LayerNorms %6); its score cells at n = %7: %8 layers × %9 heads × n² = %10.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;：任何 n 下都是 %2 个参数（嵌入 %3，注意力 %4，MLP %5，LayerNorm %6）；n = %7 时它的分数格子：%8 层 × %9 头 × n² = %10。</translation>
    </message>
    <message>
        <location line="+9" />
        <source>They pass the parameters from n = %1.</source>
        <translation>从 n = %1 起分数格子多于参数。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>They would pass the parameters only at n = %1, past its %2 positions.</source>
        <translation>要到 n = %1 分数格子才会多于参数，超出了它的 %2 个位置。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>A whole model, every parameter counted:</source>
        <translation>整个模型，逐个统计参数：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>GPT-2 small</source>
        <translation>GPT-2 small</translation>
    </message>
    <message>
        <location line="+2" />
        <source>The built-in model</source>
        <translation>内置模型</translation>
    </message>
    <message>
        <location line="+36" />
        <location line="+27" />
        <source>parameters W_Q, W_K, W_V, W_O (flat)</source>
        <translation>参数 W_Q、W_K、W_V、W_O（水平线）</translation>
    </message>
    <message>
        <location line="-26" />
        <source>parameters: 0 in direct mode</source>
        <translation>参数：直接模式下为 0</translation>
    </message>
    <message>
        <location line="+2" />
        <location line="+29" />
        <source>open cells under the mask</source>
        <translation>掩码下开放的格子</translation>
    </message>
    <message>
        <location line="+5" />
        <source>cells, parameters</source>
        <translation>格数、参数</translation>
    </message>
</context>
<context>
    <name>attn::Document</name>
    <message>
        <location filename="../../app/document/document.cpp" line="+177" />
        <source>Drag</source>
        <extracomment>An undo step: a drag with the mouse.</extracomment>
        <translation>拖动</translation>
    </message>
    <message>
        <location line="+80" />
        <source>Untitled</source>
        <translation>未命名</translation>
    </message>
    <message>
        <location line="+101" />
        <source>%1 row %2, column %3: %4</source>
        <translation>%1 第 %2 行第 %3 列：%4</translation>
    </message>
</context>
<context>
    <name>attn::EncoderMode</name>
    <message>
        <location filename="../../app/modes/encodermode.cpp" line="+20" />
        <source>The encoder was not opened: %1</source>
        <translation>编码器未打开：%1</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Opened the encoder %1</source>
        <translation>已打开编码器 %1</translation>
    </message>
    <message>
        <location line="-2" />
        <source>&amp;Encoder (BERT)</source>
        <translation>编码器 (BERT)(&amp;E)</translation>
    </message>
    <message>
        <location line="+0" />
        <source>A model that reads both ways and fills in a masked word</source>
        <translation>双向阅读、填出被遮住的词的模型</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Open &amp;encoder…</source>
        <translation>打开编码器(&amp;E)…</translation>
    </message>
    <message>
        <location line="+1" />
        <source>A BERT folder in the Hugging Face layout: config.json, model.safetensors, vocab.txt</source>
        <translation>Hugging Face 格式的 BERT 文件夹：config.json、model.safetensors、vocab.txt</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Open an encoder folder</source>
        <translation>打开编码器文件夹</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The built-in encoder did not load: %1</source>
        <translation>内置编码器未能加载：%1</translation>
    </message>
</context>
<context>
    <name>attn::EncoderView</name>
    <message>
        <location filename="../../app/views/encoderview.cpp" line="+122" />
        <source>Take encoder layer %1, head %2 into the lab</source>
        <translation>把编码器第 %1 层第 %2 个头带入实验室</translation>
    </message>
    <message>
        <location line="+76" />
        <source>Q, K and V come from the same sequence: the %1 tokens' states entering layer %2 (%1 × %3), times W_Q, W_K and W_V (%3 × %4 each, this head's columns): Q, K and V are %1 × %4. No causal mask: row i reads every key, the later ones too. (Cross-attention would take K and V from another sequence.)</source>
        <extracomment>%1 tokens, %2 the layer, %3 hidden size, %4 the head's width.</extracomment>
        <translation>Q、K、V 来自同一个序列：进入第 %2 层的 %1 个词元的状态（%1 × %3），乘以 W_Q、W_K、W_V（各 %3 × %4，本头的列）：Q、K、V 都是 %1 × %4。没有因果掩码：第 i 行读所有键，后面的也读。（交叉注意力的 K 和 V 来自另一个序列。）</translation>
    </message>
    <message>
        <location line="+45" />
        <source>L%1</source>
        <translation>第%1层</translation>
    </message>
    <message>
        <location line="+1" />
        <source>H%1</source>
        <translation>头%1</translation>
    </message>
    <message>
        <location line="+13" />
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <location line="+1" />
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Layer %1, head %2: weights</source>
        <translation>第 %1 层第 %2 个头：权重</translation>
    </message>
    <message>
        <location line="+1" />
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+11" />
        <source>[MASK] at position %1: the model's guesses</source>
        <translation>位置 %1 的 [MASK]：模型的猜测</translation>
    </message>
    <message>
        <location line="+2" />
        <source>[MASK] at position %1 (the first of %2): the model's guesses</source>
        <translation>位置 %1 的 [MASK]（共 %2 个中的第一个）：模型的猜测</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Write [MASK] where the model should guess a word.</source>
        <translation>在要模型猜词的地方写 [MASK]。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>This model has no masked-word head: nothing to fill.</source>
        <translation>这个模型没有掩码词预测头：没有可填的词。</translation>
    </message>
    <message>
        <location line="+7" />
        <source>&amp;Sentence:</source>
        <translation>句子(&amp;S)：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Take this head into the lab</source>
        <translation>把这个头带进实验室</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The chosen head's Q, K and V as a lab scenario, without the causal mask</source>
        <translation>把所选头的 Q、K、V 作为实验室场景，不加因果掩码</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+1" />
        <source>An encoder (BERT) reads the sentence both ways: every token attends to every other, before and after it, so no map has the causal triangle. It was trained to fill in hidden words: write [MASK] in the sentence.</source>
        <translation>编码器（BERT）双向阅读句子：每个词元都关注所有其他词元，前面的和后面的都看，所以没有哪张图有因果三角。它被训练来填出被遮住的词：在句子里写 [MASK]。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Encoder: %1 (%2 layers × %3 heads, hidden %4, %5 parameters)</source>
        <translation>编码器：%1（%2 层 × %3 头，隐藏维度 %4，%5 个参数）</translation>
    </message>
    <message>
        <location line="+6" />
        <source>No guess</source>
        <translation>没有猜测</translation>
    </message>
</context>
<context>
    <name>attn::ExportDialog</name>
    <message>
        <location filename="../../app/gui/exportdialog.cpp" line="+61" />
        <source>Export a figure</source>
        <translation>导出图片</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Vector plane</source>
        <translation>向量平面</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Dashboard (every map and the plane)</source>
        <translation>总览图（全部热图和向量平面）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>A/B: A, B and B − A (%1)</source>
        <translation>A/B：A、B 和 B − A（%1）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Difference map B − A (%1)</source>
        <translation>差值图 B − A（%1）</translation>
    </message>
    <message>
        <location line="+4" />
        <source>&amp;Figure:</source>
        <translation>图片(&amp;F)：</translation>
    </message>
    <message>
        <location line="+3" />
        <source>PNG image</source>
        <translation>PNG 图像</translation>
    </message>
    <message>
        <location line="+1" />
        <source>SVG vector drawing</source>
        <translation>SVG 矢量图</translation>
    </message>
    <message>
        <location line="+1" />
        <source>PDF document</source>
        <translation>PDF 文档</translation>
    </message>
    <message>
        <location line="+1" />
        <source>F&amp;ormat:</source>
        <translation>格式(&amp;O)：</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Slide: 1600 × 900 at 2×, with numbers large enough to read from the back of a room</source>
        <translation>幻灯片：1600 × 900，2 倍像素，数字大到教室最后一排也能看清</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Preset:</source>
        <translation>预设(&amp;P)：</translation>
    </message>
    <message>
        <location line="+5" />
        <source>High contrast for projectors; the colour maps stay colour-blind safe</source>
        <translation>为投影仪准备的高对比度；色图仍对色盲友好</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Theme:</source>
        <translation>主题(&amp;T)：</translation>
    </message>
    <message>
        <location line="+5" />
        <location line="+3" />
        <source> px</source>
        <translation> 像素</translation>
    </message>
    <message>
        <location line="+5" />
        <source>PNG only: pixels per point, for sharp slides on large screens</source>
        <translation>仅用于 PNG：像素倍率，让大屏幕上的幻灯片更清晰</translation>
    </message>
    <message>
        <location line="+6" />
        <source>scale</source>
        <extracomment>Pixels per point of a PNG (1×, 2×, ...).</extracomment>
        <translation>倍率</translation>
    </message>
    <message>
        <location line="+4" />
        <source>&amp;Size:</source>
        <translation>尺寸(&amp;S)：</translation>
    </message>
    <message>
        <location line="+6" />
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <location line="+3" />
        <source>&amp;File:</source>
        <translation>文件(&amp;F)：</translation>
    </message>
    <message>
        <location line="+83" />
        <source>Replace the file?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1 already exists. Replace it?</source>
        <translation>%1 已存在。要替换它吗？</translation>
    </message>
    <message>
        <location line="+52" />
        <source>Export to</source>
        <translation>导出到</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1 files (*.%2)</source>
        <translation>%1 文件 (*.%2)</translation>
    </message>
</context>
<context>
    <name>attn::FigureExport</name>
    <message>
        <location filename="../../widgets/figureexport.cpp" line="+75" />
        <source>Default</source>
        <translation>默认</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Slide (16:9, large type)</source>
        <translation>幻灯片（16:9，大字号）</translation>
    </message>
</context>
<context>
    <name>attn::FormulaBar</name>
    <message>
        <location filename="../../app/views/stageviews.cpp" line="+78" />
        <source>✗ not renormalised</source>
        <translation>✗ 未重新归一化</translation>
    </message>
    <message>
        <location line="+5" />
        <source>R rotates each pair of dimensions by its position</source>
        <translation>R 按位置旋转每一对维度</translation>
    </message>
</context>
<context>
    <name>attn::GenerationPanel</name>
    <message>
        <location filename="../../app/views/generationpanel.cpp" line="+112" />
        <source>Open a model first.</source>
        <translation>请先打开一个模型。</translation>
    </message>
    <message>
        <location line="+7" />
        <source>The model has no sentence to continue: type one.</source>
        <translation>模型没有可续写的句子：请输入一个。</translation>
    </message>
    <message>
        <location line="+5" />
        <source>All %1 steps are done: Reset to start again, or raise Steps.</source>
        <translation>%1 步已全部完成：按“重置”重新开始，或增大“步数”。</translation>
    </message>
    <message>
        <location line="+5" />
        <source>The context is full: %1 reads at most %2 tokens.</source>
        <translation>上下文已满：%1 最多读 %2 个词元。</translation>
    </message>
    <message>
        <location line="+10" />
        <source>The model gave no token a probability.</source>
        <translation>模型没有给任何词元概率。</translation>
    </message>
    <message>
        <location line="+93" />
        <source>&lt;b&gt;Training reads it all at once.&lt;/b&gt; One forward over the whole text, without the cache, every position under the causal mask: row i predicts token i + 1, as each step did.</source>
        <translation>&lt;b&gt;训练时一次读完。&lt;/b&gt;对整段文本做一次前向计算，不用缓存，每个位置都在因果掩码之下：第 i 行预测第 i + 1 个词元，和每一步做的一样。</translation>
    </message>
    <message>
        <location line="+5" />
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <location line="+0" />
        <source>p at its step</source>
        <translation>逐步生成时的 p</translation>
    </message>
    <message>
        <location line="+0" />
        <source>p in one pass</source>
        <translation>一次前向的 p</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Largest difference of any weight between the maps the steps built and the one pass: %1.</source>
        <translation>逐步生成得到的图与一次前向之间，任一权重的最大差：%1。</translation>
    </message>
    <message>
        <location line="+12" />
        <source>Each step computes only the new query row against the cached keys and values; without the cache the whole triangle is computed again.</source>
        <translation>每一步只计算新的查询行与缓存的键和值；没有缓存时要把整个三角形重新算一遍。</translation>
    </message>
    <message>
        <location line="+14" />
        <source>Step %1: the forward read %2 tokens, %3 from the cache, and computed %4 score entries a head; without the cache, %5 (the whole triangle). So far: %6 against %7.</source>
        <translation>第 %1 步：前向读了 %2 个词元，其中 %3 个来自缓存，每个头计算了 %4 个分数；没有缓存则要 %5 个（整个三角形）。累计：%6 对 %7。</translation>
    </message>
    <message>
        <location line="+20" />
        <source>Step %1's distribution: softmax → after temperature, top-k, top-p; u = %2 chose %3</source>
        <translation>第 %1 步的分布：softmax → 经温度、top-k、top-p 之后；u = %2 选中了 %3</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Step %1's distribution: softmax → greedy (the most likely, %2)</source>
        <translation>第 %1 步的分布：softmax → 贪心（取最可能的 %2）</translation>
    </message>
    <message>
        <location line="+12" />
        <source>&lt;b&gt;Generate, token by token.&lt;/b&gt; Each step the model reads the text so far, and the next token is drawn from its last position's distribution.</source>
        <translation>&lt;b&gt;逐词元生成。&lt;/b&gt;每一步模型读入目前为止的文本，下一个词元从最后一个位置的分布中抽取。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Press Step: the next token's distribution appears here.</source>
        <translation>按“单步”：下一个词元的分布会显示在这里。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>The next token's distribution</source>
        <translation>下一个词元的分布</translation>
    </message>
</context>
<context>
    <name>attn::GradientMode</name>
    <message>
        <location filename="../../app/modes/gradientmode.cpp" line="+23" />
        <source>Gradient lens</source>
        <translation>梯度透镜</translation>
    </message>
    <message>
        <location line="+18" />
        <source>&amp;Gradient lens</source>
        <translation>梯度透镜(&amp;G)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>The gradients of a loss you choose beside the maps, and gradient descent on the plane</source>
        <translation>在热图旁显示所选损失的梯度，并在向量平面上做梯度下降</translation>
    </message>
</context>
<context>
    <name>attn::GradientPanel</name>
    <message>
        <location filename="../../app/views/gradientpanel.cpp" line="+220" />
        <source>Loss:</source>
        <translation>损失：</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Make every query attend to</source>
        <translation>让每个查询都关注</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Move the query's output towards the value of</source>
        <translation>把该查询的输出移向这个词的值</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Move the query's output towards the vector</source>
        <translation>把该查询的输出移向向量</translation>
    </message>
    <message>
        <location line="+2" />
        <source>The loss L whose gradients are shown; gradient descent lowers it</source>
        <translation>所显示梯度对应的损失 L；梯度下降使它变小</translation>
    </message>
    <message>
        <location line="+1" />
        <source>e.g. 1, 0</source>
        <translation>例如 1, 0</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The output the selected query should have: d_out numbers, separated by commas</source>
        <translation>所选查询应有的输出：d_out 个数，用逗号分隔</translation>
    </message>
    <message>
        <location line="+1" />
        <source>η:</source>
        <translation>η：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The learning rate: a step moves the vector by −η·∂L/∂v</source>
        <translation>学习率：每一步把向量移动 −η·∂L/∂v</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Steps ≤</source>
        <translation>步数 ≤</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Descend stops after this many steps at most</source>
        <translation>下降最多走这么多步就停</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Step</source>
        <translation>走一步</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Move the selected vector of the plane by −η·∂L/∂v (one undo step)</source>
        <translation>把平面上所选的向量移动 −η·∂L/∂v（一步撤销）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Arrows on the plane</source>
        <translation>平面上的箭头</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Draw −∂L/∂v on the vector plane at the selected query (and at each key with Drag keys)</source>
        <translation>在向量平面上所选查询处画出 −∂L/∂v（开启“拖动键”时每把键处也画）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location line="+1" />
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location line="+6" />
        <source>■ Stop</source>
        <translation>■ 停止</translation>
    </message>
    <message>
        <location line="+0" />
        <source>▶ Descend</source>
        <translation>▶ 下降</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Stop the descent here (what it did so far stays, one undo step)</source>
        <translation>在此停止下降（已走的步保留，为一步撤销）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Take steps until the loss stops falling (all of them one undo step)</source>
        <translation>一步步走，直到损失不再下降（全部为一步撤销）</translation>
    </message>
    <message>
        <location line="+94" />
        <source>L = −(1/(h·n_q)) Σ_i log w(i, %1), over the rows where %1 is open = %2</source>
        <translation>L = −(1/(h·n_q)) Σ_i log w(i, %1)，对 %1 未被屏蔽的各行求和 = %2</translation>
    </message>
    <message>
        <location line="+4" />
        <source>L = ½‖y_%1 − t‖² = %2, t = the value of %3 (the output of %1 if it attended to %3 alone)</source>
        <translation>L = ½‖y_%1 − t‖² = %2，t = %3 的值（%1 只关注 %3 时的输出）</translation>
    </message>
    <message>
        <location line="+4" />
        <source>L = ½‖y_%1 − t‖² = %2, t the typed vector</source>
        <translation>L = ½‖y_%1 − t‖² = %2，t 为输入的向量</translation>
    </message>
    <message>
        <location line="+7" />
        <source>No gradient here: %1</source>
        <translation>此处没有梯度：%1</translation>
    </message>
    <message>
        <location line="+23" />
        <source>, head %1</source>
        <translation>，第 %1 头</translation>
    </message>
    <message>
        <location line="+19" />
        <source>∂L/∂weights%1</source>
        <translation>∂L/∂权重%1</translation>
    </message>
    <message>
        <location line="+13" />
        <source>∂L/∂scores%1</source>
        <translation>∂L/∂打分%1</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Jacobian of %1</source>
        <translation>%1 的雅可比矩阵</translation>
    </message>
    <message>
        <location line="+9" />
        <source>∂L/∂%1%2</source>
        <translation>∂L/∂%1%2</translation>
    </message>
    <message>
        <location line="+3" />
        <source>∂L/∂%1</source>
        <translation>∂L/∂%1</translation>
    </message>
    <message>
        <location line="+51" />
        <source>∂L/∂w(%1 → %2) = %3</source>
        <translation>∂L/∂w(%1 → %2) = %3</translation>
    </message>
    <message>
        <location line="+3" />
        <source>The loss reads only the weights on %1: 0.</source>
        <translation>损失只读取 %1 上的权重：此处为 0。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>−1/(h·n_q·w) = %1</source>
        <translation>−1/(h·n_q·w) = %1</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Σ_d ∂out_d·v_%1,d = %2</source>
        <translation>Σ_d ∂out_d·v_%1,d = %2</translation>
    </message>
    <message>
        <location line="+5" />
        <source>∂L/∂score(%1 → %2) = %3</source>
        <translation>∂L/∂打分(%1 → %2) = %3</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Blocked before the softmax: the cell passes no gradient.</source>
        <translation>在 softmax 之前屏蔽：这一格不传递任何梯度。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>w_j (g_j − Σ_k g_k w_k) ÷ (c·τ), g = ∂L/∂w</source>
        <translation>w_j (g_j − Σ_k g_k w_k) ÷ (c·τ)，g = ∂L/∂w</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Σ_k g_k w_k = %1</source>
        <translation>Σ_k g_k w_k = %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>= %1</source>
        <translation>= %1</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Blocked after the softmax: g_j counts as 0, yet the score still moves the row's other weights through the denominator.</source>
        <translation>在 softmax 之后屏蔽：g_j 按 0 计，但这个打分仍通过分母影响本行其他权重。</translation>
    </message>
    <message>
        <location line="+6" />
        <source>∂w_%1/∂x_%2 = w_i(δ_ij − w_j) = %3</source>
        <translation>∂w_%1/∂x_%2 = w_i(δ_ij − w_j) = %3</translation>
    </message>
    <message>
        <location line="+14" />
        <source>∂X = ∂Q W_qᵀ</source>
        <translation>∂X = ∂Q W_qᵀ</translation>
    </message>
    <message>
        <location line="+0" />
        <source>∂X = ∂Q W_qᵀ + ∂K W_kᵀ + ∂V W_vᵀ</source>
        <translation>∂X = ∂Q W_qᵀ + ∂K W_kᵀ + ∂V W_vᵀ</translation>
    </message>
    <message>
        <location line="+3" />
        <source>∂source = ∂K W_kᵀ + ∂V W_vᵀ</source>
        <translation>∂源 = ∂K W_kᵀ + ∂V W_vᵀ</translation>
    </message>
    <message>
        <location line="+3" />
        <source>∂W_q = (X + P)ᵀ ∂Q</source>
        <translation>∂W_q = (X + P)ᵀ ∂Q</translation>
    </message>
    <message>
        <location line="+3" />
        <source>∂W_k = (S + P)ᵀ ∂K</source>
        <translation>∂W_k = (S + P)ᵀ ∂K</translation>
    </message>
    <message>
        <location line="+3" />
        <source>∂W_v = (S + P)ᵀ ∂V</source>
        <translation>∂W_v = (S + P)ᵀ ∂V</translation>
    </message>
    <message>
        <location line="+3" />
        <source>The attend loss does not read W_O: 0.</source>
        <translation>关注损失不读取 W_O：此处为 0。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>∂W_O = concatᵀ (Y − T)</source>
        <translation>∂W_O = concatᵀ (Y − T)</translation>
    </message>
    <message>
        <location line="+5" />
        <source>∂L/∂%1[%2, %3] = %4</source>
        <translation>∂L/∂%1[%2, %3] = %4</translation>
    </message>
    <message>
        <location line="+6" />
        <source>∂L/∂%1 of %2, d%3 = %4</source>
        <translation>%2 的 ∂L/∂%1，d%3 = %4</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Σ_i w_i,%1·∂out_i,d = %2</source>
        <translation>Σ_i w_i,%1·∂out_i,d = %2</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Σ_j ∂s_j·k_j,d</source>
        <translation>Σ_j ∂s_j·k_j,d</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Σ_i ∂s_i·q_i,d</source>
        <translation>Σ_i ∂s_i·q_i,d</translation>
    </message>
    <message>
        <location line="+2" />
        <source>−2 Σ_j ∂s_j (q_d − k_j,d)</source>
        <translation>−2 Σ_j ∂s_j (q_d − k_j,d)</translation>
    </message>
    <message>
        <location line="+0" />
        <source>2 Σ_i ∂s_i (q_i,d − k_d)</source>
        <translation>2 Σ_i ∂s_i (q_i,d − k_d)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>through the unit vectors: (∂û − (∂û·û) û) / ‖v‖</source>
        <translation>经由单位向量：(∂û − (∂û·û) û) / ‖v‖</translation>
    </message>
    <message>
        <location line="+2" />
        <source>RoPE: the rotated vectors' gradient, turned back by R(θ)ᵀ</source>
        <translation>RoPE：旋转后向量的梯度，再用 R(θ)ᵀ 转回</translation>
    </message>
    <message>
        <location line="+57" />
        <source>key %1</source>
        <translation>键 %1</translation>
    </message>
    <message>
        <location line="+0" />
        <source>query %1</source>
        <translation>查询 %1</translation>
    </message>
    <message>
        <location line="+28" />
        <source>Gradient step on %1</source>
        <translation>对%1走一步梯度下降</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Step: L %1 → %2</source>
        <translation>一步：L %1 → %2</translation>
    </message>
    <message>
        <location line="+19" />
        <location line="+30" />
        <source>Descend on %1</source>
        <translation>对%1做梯度下降</translation>
    </message>
    <message>
        <location line="-29" />
        <source>Descending…</source>
        <translation>正在下降…</translation>
    </message>
    <message>
        <location line="+14" />
        <source>Stopped: no gradient here.</source>
        <translation>已停止：此处没有梯度。</translation>
    </message>
    <message>
        <location line="+16" />
        <source>Stopped: the step was refused.</source>
        <translation>已停止：这一步被拒绝。</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Step %1: L = %2</source>
        <translation>第 %1 步：L = %2</translation>
    </message>
    <message>
        <location line="-538" />
        <source>The descent was undone.</source>
        <translation>这次下降已撤销。</translation>
    </message>
    <message>
        <location line="+525" />
        <source>Stopped at step %1: a step of η = %2 no longer lowers L = %3 (try a smaller η).</source>
        <translation>在第 %1 步停止：η = %2 的一步已不能降低 L = %3（试试更小的 η）。</translation>
    </message>
    <message>
        <location line="+15" />
        <source>Settled at step %1: L = %2 (it fell by less than %3 of itself).</source>
        <translation>在第 %1 步稳定：L = %2（下降不到自身的 %3）。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Stopped at the limit, step %1: L = %2.</source>
        <translation>到达步数上限，第 %1 步：L = %2。</translation>
    </message>
    <message>
        <location line="+21" />
        <source>Stopped at step %1.</source>
        <translation>在第 %1 步停止。</translation>
    </message>
</context>
<context>
    <name>attn::Gradients</name>
    <message>
        <location filename="../../widgets/gradients.cpp" line="+151" />
        <source>Viridis</source>
        <translation>Viridis</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Cividis</source>
        <translation>Cividis</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Magma</source>
        <translation>Magma</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Blue–white–red</source>
        <translation>蓝–白–红</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Purple–white–orange</source>
        <translation>紫–白–橙</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Blue–black–orange (dark figures)</source>
        <translation>蓝–黑–橙（深色图）</translation>
    </message>
    <message>
        <location line="+111" />
        <source>Default</source>
        <translation>默认</translation>
    </message>
    <message>
        <location line="+1" />
        <source>High contrast, light (projector)</source>
        <translation>高对比度，浅色（投影）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>High contrast, dark (projector)</source>
        <translation>高对比度，深色（投影）</translation>
    </message>
</context>
<context>
    <name>attn::GuessBars</name>
    <message>
        <location filename="../../app/views/guesspanel.cpp" line="+25" />
        <source>Drag each bar to the weight you expect</source>
        <translation>把每根柱子拖到你预计的权重</translation>
    </message>
</context>
<context>
    <name>attn::GuessPanel</name>
    <message>
        <location line="+202" />
        <source>&amp;Reveal</source>
        <translation>揭晓(&amp;R)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Ne&amp;xt row</source>
        <translation>下一行(&amp;X)</translation>
    </message>
    <message>
        <location line="+46" />
        <source>Winner:</source>
        <translation>胜者：</translation>
    </message>
    <message>
        <location line="+2" />
        <source>(%1 keys: too many to click; drag the bars to guess)</source>
        <translation>（%1 个键：太多，无法逐个点击；请拖动条形来猜）</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Guess that %1 gets the most weight</source>
        <translation>猜 %1 得到最大权重</translation>
    </message>
    <message>
        <location line="+41" />
        <source>Query %1: which key wins? Click it, or drag the bars to guess the whole row, then Reveal.</source>
        <translation>查询 %1：哪把键胜出？点击它，或拖动柱子猜整行，然后揭晓。</translation>
    </message>
    <message>
        <location line="+111" />
        <source>Rounds: %1 · average difference %2</source>
        <translation>轮数：%1 · 平均差 %2</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Orange: your guess (scaled to sum to 1 for the score) · blue: the true weights. Difference Σ|guess − w| = %1 (0 is perfect, 2 the worst).</source>
        <extracomment>The score of a guess: the total absolute difference from the true row (0 = perfect, 2 = worst).</extracomment>
        <translation>橙色：你的猜测（计分时缩放到和为 1）· 蓝色：真实权重。差 Σ|猜测 − w| = %1（0 为满分，2 最差）。</translation>
    </message>
    <message>
        <location line="-122" />
        <source>Query %1: every key is blocked, so no key gets any weight. Try the next row.</source>
        <translation>查询 %1：所有键都被屏蔽，没有键能得到权重。请试下一行。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Query %1: which key wins? Click it, or drag the bars to guess the whole row, then Reveal. (%2 blocked keys get no weight and are left out.)</source>
        <extracomment>%2 is the number of blocked keys, left out of the guess.</extracomment>
        <translation>查询 %1：哪个键胜出？点击它，或拖动柱条猜整行，然后点“揭晓”。（%2 个被屏蔽的键得不到权重，不参与猜测。）</translation>
    </message>
</context>
<context>
    <name>attn::HeatmapAccessible</name>
    <message>
        <location filename="../../widgets/heatmapaccessible.cpp" line="+177" />
        <source>%1 rows by %2 columns; the arrow keys move from cell to cell</source>
        <translation>%1 行 × %2 列；用方向键在单元格之间移动</translation>
    </message>
    <message>
        <location line="+151" />
        <source>hidden</source>
        <extracomment>What a screen reader says for a cell while the answers are hidden.</extracomment>
        <translation>已隐藏</translation>
    </message>
    <message>
        <location line="+4" />
        <source>blocked</source>
        <extracomment>What a screen reader says for a blocked cell of a map.</extracomment>
        <translation>已屏蔽</translation>
    </message>
</context>
<context>
    <name>attn::LabMode</name>
    <message>
        <location filename="../../app/modes/labmode.cpp" line="+93" />
        <source>Vector &amp;plane</source>
        <translation>向量平面(&amp;P)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>All &amp;heads</source>
        <translation>所有头(&amp;H)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Concat → output</source>
        <translation>拼接 → 输出(&amp;C)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Positional &amp;encoding</source>
        <translation>位置编码(&amp;E)</translation>
    </message>
    <message>
        <location line="+15" />
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <location line="+24" />
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location line="+97" />
        <source>&amp;Maps</source>
        <translation>热图(&amp;M)</translation>
    </message>
</context>
<context>
    <name>attn::MainWindow</name>
    <message>
        <location filename="../../app/gui/mainwindow.cpp" line="+57" />
        <location line="+380" />
        <source>Untitled</source>
        <translation>未命名</translation>
    </message>
    <message>
        <location filename="../../app/gui/menus.cpp" line="+166" />
        <source>&amp;Positional encoding</source>
        <translation>位置编码(&amp;P)</translation>
    </message>
    <message>
        <location line="-100" />
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <location line="+4" />
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Open &amp;model…</source>
        <translation>打开模型(&amp;M)…</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Open a GPT-2 model folder (config.json, model.safetensors, vocab.json, merges.txt)</source>
        <translation>打开一个 GPT-2 模型文件夹（config.json、model.safetensors、vocab.json、merges.txt）</translation>
    </message>
    <message>
        <location line="+6" />
        <source>A model folder in the Hugging Face GPT-2 layout: every layer and head for a sentence you type</source>
        <translation>Hugging Face GPT-2 格式的模型文件夹：你输入的句子在每一层、每个头上的注意力</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Export figure…</source>
        <translation>导出图片(&amp;E)…</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Export &amp;dashboard…</source>
        <translation>导出总览图(&amp;D)…</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Export &amp;numbers</source>
        <translation>导出数值(&amp;N)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>As &amp;CSV files…</source>
        <translation>CSV 文件(&amp;C)…</translation>
    </message>
    <message>
        <location line="+1" />
        <source>As one &amp;JSON trace…</source>
        <translation>单个 JSON 计算过程文件(&amp;J)…</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Print quiz handout…</source>
        <translation>打印测验讲义(&amp;P)…</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location line="+6" />
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location line="+5" />
        <location line="+13" />
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location line="-11" />
        <location line="+13" />
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location line="-4" />
        <source>&amp;Undo: cancel the drag</source>
        <extracomment>%1 names the step, e.g. "Undo Add token t5".</extracomment>
        <translation>撤销：取消这次拖动(&amp;U)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Undo %1</source>
        <translation>撤销 %1(&amp;U)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>&amp;Redo %1</source>
        <extracomment>%1 names the step, e.g. "Redo Add token t5".</extracomment>
        <translation>重做 %1(&amp;R)</translation>
    </message>
    <message>
        <location line="+9" />
        <source>&amp;Copy figure</source>
        <translation>复制图片(&amp;C)</translation>
    </message>
    <message>
        <location line="+4" />
        <source>&amp;Add token</source>
        <translation>添加词元(&amp;A)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Remove token</source>
        <translation>删除词元(&amp;R)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Move token &amp;up</source>
        <translation>上移词元(&amp;U)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Move token &amp;down</source>
        <translation>下移词元(&amp;D)</translation>
    </message>
    <message>
        <location line="+9" />
        <source>&amp;Attention</source>
        <translation>注意力(&amp;A)</translation>
    </message>
    <message>
        <location line="+14" />
        <source>&amp;Heads</source>
        <translation>多头(&amp;H)</translation>
    </message>
    <message>
        <location line="+6" />
        <source>&amp;Scaling</source>
        <translation>缩放(&amp;S)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>S&amp;imilarity</source>
        <translation>相似度(&amp;I)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Temperature</source>
        <translation>温度(&amp;T)</translation>
    </message>
    <message>
        <location line="+13" />
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location line="+34" />
        <source>Colours for &amp;weights</source>
        <translation>权重配色(&amp;W)</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Colours for &amp;scores</source>
        <translation>分数配色(&amp;S)</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Cell &amp;values</source>
        <translation>单元格数值(&amp;V)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Automatic (when they fit)</source>
        <translation>自动（放得下时显示）(&amp;A)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Al&amp;ways</source>
        <translation>总是显示(&amp;W)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Never</source>
        <translation>从不显示(&amp;N)</translation>
    </message>
    <message>
        <location line="+7" />
        <source>&amp;Cycle</source>
        <translation>循环切换(&amp;C)</translation>
    </message>
    <message>
        <location line="+7" />
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Score maps share one colour &amp;range</source>
        <translation>分数热图共用同一色阶范围(&amp;R)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Scores, scaled scores and masked scores on one scale, so that scaling visibly shrinks them</source>
        <translation>分数、缩放后分数和加掩码后的分数共用同一色阶，能直观看到缩放让分数变小</translation>
    </message>
    <message>
        <location line="-75" />
        <source>Zoom &amp;in</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Zoom &amp;out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Actual size</source>
        <translation>实际大小(&amp;A)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Full screen</source>
        <translation>全屏(&amp;F)</translation>
    </message>
    <message>
        <location line="+7" />
        <source>&amp;Maps only (hide the panels)</source>
        <translation>只显示热图（隐藏面板）(&amp;M)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Give the whole window to the maps, e.g. on a projector; F9 again brings the panels back</source>
        <translation>整个窗口只显示热图，适合投影；再按 F9 恢复面板</translation>
    </message>
    <message>
        <location line="+72" />
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;System default</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <location line="+13" />
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location line="+0" />
        <source>The language changes the next time Attention Lab starts.</source>
        <translation>语言将在下次启动 Attention Lab 时生效。</translation>
    </message>
    <message>
        <location line="+6" />
        <source>&amp;Lessons</source>
        <translation>课程(&amp;L)</translation>
    </message>
    <message>
        <location line="+14" />
        <source>A real transformer: the built-in model</source>
        <translation>真正的 Transformer：内置模型</translation>
    </message>
    <message>
        <location line="+4" />
        <source>A small GPT-2 trained on English and Chinese: type a sentence and see every layer and head</source>
        <translation>一个用英文和中文训练的小 GPT-2：输入一个句子，查看每一层、每个头</translation>
    </message>
    <message>
        <location line="+7" />
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;About Attention Lab</source>
        <translation>关于 Attention Lab(&amp;A)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>About Attention Lab</source>
        <translation>关于 Attention Lab</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&lt;h3&gt;Attention Lab %1&lt;/h3&gt;&lt;p&gt;Scaled dot-product attention, live, for the classroom: edit Q, K and V, switch masks, heads and encodings, and watch every stage change.&lt;/p&gt;&lt;p&gt;Hover a cell for its hand calculation; click a cell to select its query, Ctrl+click it to block or open it.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Attention Lab %1&lt;/h3&gt;&lt;p&gt;缩放点积注意力的课堂实时演示：编辑 Q、K 和 V，切换掩码、头数和位置编码，观察每个计算环节如何变化。&lt;/p&gt;&lt;p&gt;鼠标悬停在单元格上可查看它的手算过程；单击单元格选中它的查询，按住 Ctrl 单击可屏蔽或取消屏蔽。&lt;/p&gt;</translation>
    </message>
    <message>
        <location line="+6" />
        <source>About &amp;Qt</source>
        <translation>关于 &amp;Qt</translation>
    </message>
    <message>
        <location filename="../../app/gui/mainwindow.cpp" line="-28" />
        <source>Zoom %1%</source>
        <translation>显示比例 %1%</translation>
    </message>
    <message>
        <location filename="../../app/gui/projectorlayout.cpp" line="+246" />
        <source>Panels folded so that every map keeps its numbers; F9 brings them back</source>
        <translation>面板已收起，让每张图都显示数值；按 F9 恢复</translation>
    </message>
    <message>
        <location filename="../../app/gui/mainwindow.cpp" line="+29" />
        <source>Restore unsaved work?</source>
        <translation>恢复未保存的内容？</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Attention Lab did not close properly. %1 has changes from %2 that were not saved.</source>
        <translation>Attention Lab 上次没有正常关闭。%1 有 %2 的改动尚未保存。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>&amp;Restore</source>
        <translation>恢复(&amp;R)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Discard</source>
        <translation>丢弃(&amp;D)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Ask &amp;later</source>
        <translation>以后再问(&amp;L)</translation>
    </message>
    <message>
        <location line="+7" />
        <source>Restored the unsaved changes of %1</source>
        <translation>已恢复 %1 未保存的改动</translation>
    </message>
    <message>
        <location line="+53" />
        <source>%1[*] — Attention Lab</source>
        <translation>%1[*] — Attention Lab</translation>
    </message>
    <message>
        <location line="+64" />
        <source>Cannot export</source>
        <translation>无法导出</translation>
    </message>
    <message>
        <location line="+9" />
        <source>%1 was not opened: %2</source>
        <translation>未能打开 %1：%2</translation>
    </message>
    <message>
        <location filename="../../app/gui/main.cpp" line="+257" />
        <location filename="../../app/gui/mainwindow.cpp" line="+3" />
        <source>Cannot open %1</source>
        <translation>无法打开 %1</translation>
    </message>
    <message>
        <location filename="../../app/gui/mainwindow.cpp" line="+7" />
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <location line="+32" />
        <source>Open a scenario</source>
        <translation>打开场景</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Attention Lab scenarios (*.json);;All files (*)</source>
        <translation>Attention Lab 场景 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+18" />
        <source>untitled</source>
        <extracomment>A file name for a new scenario.</extracomment>
        <translation>未命名</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Save the scenario</source>
        <translation>保存场景</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Attention Lab scenarios (*.json)</source>
        <translation>Attention Lab 场景 (*.json)</translation>
    </message>
    <message>
        <location line="+11" />
        <source>%1 was not saved: %2</source>
        <translation>未能保存 %1：%2</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Cannot save</source>
        <translation>无法保存</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1 has changes that are not saved. Save them?</source>
        <translation>%1 有未保存的更改。要保存吗？</translation>
    </message>
    <message>
        <location filename="../../app/gui/menus.cpp" line="+30" />
        <source>&amp;Clear the list</source>
        <translation>清空列表(&amp;C)</translation>
    </message>
    <message>
        <location line="-153" />
        <source>√d_k &amp;lab…</source>
        <translation>√d_k 实验室(&amp;L)…</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Why divide by √d_k: random q and k, their scores and the softmax, in a window of its own</source>
        <translation>为什么要除以 √d_k：随机的 q 和 k、它们的打分和 softmax，在单独的窗口里</translation>
    </message>
    <message>
        <location filename="../../app/gui/mainwindow.cpp" line="-177" />
        <source>√d_k lab — Attention Lab</source>
        <translation>√d_k 实验室 — Attention Lab</translation>
    </message>
    <message>
        <location filename="../../app/modes/classroommode.cpp" line="-20" />
        <source>Quiz — Attention Lab</source>
        <translation>测验 — Attention Lab</translation>
    </message>
    <message>
        <location filename="../../app/modes/comparemode.cpp" line="-162" />
        <source>A/B — Attention Lab</source>
        <translation>A/B — 注意力实验室</translation>
    </message>
    <message>
        <location filename="../../app/gui/projectorlayout.cpp" line="-126" />
        <source>The panels cost some maps their numbers</source>
        <translation>面板占去了地方，有的热图显示不了数值</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Fold them (F9)</source>
        <translation>收起面板 (F9)</translation>
    </message>
    <message>
        <location filename="../../app/gui/mainwindow.cpp" line="-292" />
        <source>%1 decimals in every map: 4 do not fit at this size</source>
        <extracomment>In the status bar at a projector's zoom: why every map writes fewer decimals. Short: the line holds little.</extracomment>
        <translation>各热图都显示 %1 位小数：此尺寸放不下 4 位</translation>
    </message>
    <message>
        <location filename="../../app/gui/menus.cpp" line="-55" />
        <source>Sparse &amp;mask</source>
        <translation>稀疏掩码(&amp;M)</translation>
    </message>
</context>
<context>
    <name>attn::MatrixModel</name>
    <message>
        <location filename="../../app/document/matrixmodel.cpp" line="+204" />
        <source>%1 = %2</source>
        <translation>%1 = %2</translation>
    </message>
    <message>
        <location line="+30" />
        <source>a number is needed here</source>
        <translation>此处需要填写数值</translation>
    </message>
    <message>
        <location line="+7" />
        <source>"%1" is not a finite number</source>
        <translation>“%1”不是有限数</translation>
    </message>
    <message>
        <location line="+2" />
        <source>"%1" is not a number</source>
        <translation>“%1”不是数字</translation>
    </message>
    <message>
        <location line="-184" />
        <source>%1 row %2, column %3</source>
        <translation>%1 第 %2 行第 %3 列</translation>
    </message>
    <message>
        <location line="+14" />
        <source>“%1”</source>
        <extracomment>A token row of a table: "我", or "the" (token 4) when the token occurs twice.</extracomment>
        <translation>“%1”</translation>
    </message>
    <message>
        <location line="+0" />
        <source>“%1” (token %2)</source>
        <translation>“%1”（第 %2 个词元）</translation>
    </message>
    <message>
        <location line="+15" />
        <source>There is no table to paste into</source>
        <translation>没有可粘贴的表格</translation>
    </message>
    <message>
        <location line="+5" />
        <source>The clipboard holds no cells to paste</source>
        <translation>剪贴板中没有可粘贴的单元格</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Line %1 of the pasted text has %2 cells and line 1 has %3; a rectangular block is needed</source>
        <translation>粘贴文本第 %1 行有 %2 个单元格，而第 1 行有 %3 个；需要矩形区域</translation>
    </message>
    <message>
        <location line="+6" />
        <source>A block of %1 by %2 cells pasted at %3 runs past the edge of %4, which is %5 by %6; nothing was pasted</source>
        <translation>在 %3 处粘贴的 %1×%2 区域超出了 %4 的边界（%4 为 %5×%6）；未粘贴任何内容</translation>
    </message>
    <message>
        <location line="+17" />
        <source>%1: %2; nothing was pasted</source>
        <translation>%1：%2；未粘贴任何内容</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Paste into %1</source>
        <translation>粘贴到 %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Paste %1 by %2 cells into %3 at row %4, column %5</source>
        <translation>将 %1×%2 个单元格粘贴到 %3 的第 %4 行第 %5 列</translation>
    </message>
    <message>
        <location line="+27" />
        <source>This lesson has no %1</source>
        <translation>本课没有 %1</translation>
    </message>
    <message>
        <location line="+2" />
        <source>%1 holds %2 by %3 numbers, but %4 is %5 by %6; nothing was imported</source>
        <translation>%1 含 %2×%3 个数，但 %4 为 %5×%6；未导入任何内容</translation>
    </message>
    <message>
        <location line="+10" />
        <source>%1 (from %2): %3; nothing was imported</source>
        <translation>%1（来自 %2）：%3；未导入任何内容</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Import %1 from %2</source>
        <translation>从 %2 导入 %1</translation>
    </message>
    <message>
        <location line="+88" />
        <source>%1: %2; it stays %3</source>
        <translation>%1：%2；仍为 %3</translation>
    </message>
    <message>
        <location line="+10" />
        <source>Set %1 to %2</source>
        <translation>将 %1 设为 %2</translation>
    </message>
    <message>
        <location line="+45" />
        <source>Token %1: click to select this query, double-click to rename</source>
        <translation>词元 %1：单击选中此查询，双击重命名</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Token %1: double-click to rename</source>
        <translation>词元 %1：双击可重命名</translation>
    </message>
    <message>
        <location line="+20" />
        <source>A token needs a label; token %1 keeps its name</source>
        <translation>词元必须有名称；词元 %1 保留原名</translation>
    </message>
    <message>
        <location line="+14" />
        <source>Rename token %1 to %2</source>
        <translation>将词元 %1 重命名为 %2</translation>
    </message>
    <message>
        <location line="-7" />
        <source>A token name can have at most %1 characters (this one has %2); token %3 keeps its name</source>
        <translation>词元名称最多 %1 个字符（这个有 %2 个）；词元 %3 保留原名</translation>
    </message>
</context>
<context>
    <name>attn::MatrixPanel</name>
    <message>
        <location filename="../../app/views/matrixpanel.cpp" line="+84" />
        <source>S (source)</source>
        <translation>S（源序列）</translation>
    </message>
    <message>
        <location line="+18" />
        <source>Queries: one row per token that asks, h·d_k columns</source>
        <translation>查询：每个发出查询的词元占一行，共 h·d_k 列</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Keys: one row per token that is looked at, h·d_k columns</source>
        <translation>键：每个被查询的词元占一行，共 h·d_k 列</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Values: one row per key token, h·d_v columns; the output averages them</source>
        <translation>值：每个键词元占一行，共 h·d_v 列；输出是它们的加权平均</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Embeddings X: one row per token, d_model columns</source>
        <translation>嵌入 X：每个词元占一行，共 d_model 列</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Source sequence S for cross-attention: keys and values come from it</source>
        <translation>交叉注意力的源序列 S：键和值都来自它</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Query projection: Q = X·W_Q (d_model × h·d_k)</source>
        <translation>查询投影：Q = X·W_Q（d_model × h·d_k）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Key projection: K = S·W_K (d_model × h·d_k)</source>
        <translation>键投影：K = S·W_K（d_model × h·d_k）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Value projection: V = S·W_V (d_model × h·d_v)</source>
        <translation>值投影：V = S·W_V（d_model × h·d_v）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Output projection: output = concat·W_O (h·d_v × d_out)</source>
        <translation>输出投影：输出 = 拼接·W_O（h·d_v × d_out）</translation>
    </message>
    <message>
        <location line="+22" />
        <source>&amp;Direct Q, K, V</source>
        <translation>直接 Q、K、V(&amp;D)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Projected X·W</source>
        <translation>投影 X·W(&amp;P)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Edit the queries, keys and values themselves</source>
        <translation>直接编辑查询、键和值本身</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Edit token embeddings X and the projections W_Q, W_K, W_V (and W_O)</source>
        <translation>编辑词元嵌入 X 和投影矩阵 W_Q、W_K、W_V（以及 W_O）</translation>
    </message>
    <message>
        <location line="+13" />
        <source>Tokens:</source>
        <translation>词元：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>+ Add</source>
        <translation>+ 添加</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Add a token after the current row (Ctrl+T)</source>
        <translation>在当前行之后添加词元（Ctrl+T）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>− Remove</source>
        <translation>− 删除</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Remove the current row's token (Ctrl+Shift+T)</source>
        <translation>删除当前行的词元（Ctrl+Shift+T）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Move the current token up (Alt+Up)</source>
        <translation>上移当前词元（Alt+Up）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Move the current token down (Alt+Down)</source>
        <translation>下移当前词元（Alt+Down）</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Replace the table shown with the numbers of a .csv or .npy file of the same shape</source>
        <translation>用形状相同的 .csv 或 .npy 文件中的数替换当前表格</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Write the table shown to a .csv or .npy file</source>
        <translation>将当前表格写入 .csv 或 .npy 文件</translation>
    </message>
    <message>
        <location line="+13" />
        <source>d_k: the width of one head's queries and keys</source>
        <translation>d_k：每个头的查询和键的维度</translation>
    </message>
    <message>
        <location line="+1" />
        <source>d_v: the width of one head's values</source>
        <translation>d_v：每个头的值的维度</translation>
    </message>
    <message>
        <location line="+1" />
        <source>d_model: the width of the embeddings X</source>
        <translation>d_model：嵌入 X 的维度</translation>
    </message>
    <message>
        <location line="+1" />
        <source>d_out: the width of the output after W_O</source>
        <translation>d_out：经 W_O 投影后输出的维度</translation>
    </message>
    <message>
        <location line="+1" />
        <source>d_&amp;k</source>
        <translation>d_&amp;k</translation>
    </message>
    <message>
        <location line="+2" />
        <source>d_&amp;v</source>
        <translation>d_&amp;v</translation>
    </message>
    <message>
        <location line="+2" />
        <source>d_&amp;model</source>
        <translation>d_&amp;model</translation>
    </message>
    <message>
        <location line="+2" />
        <source>W_&amp;O, d_out</source>
        <translation>W_O，d_out(&amp;O)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Project the concatenated heads with W_O; d_out is its width</source>
        <translation>用 W_O 投影拼接后的各头；d_out 是它的宽度</translation>
    </message>
    <message>
        <location line="+45" />
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <location line="+4" />
        <source>&amp;Paste</source>
        <translation>粘贴(&amp;P)</translation>
    </message>
    <message>
        <location line="+61" />
        <source>Self-attention needs as many keys as queries (now n_q = %1, n_k = %2); add or remove tokens first</source>
        <translation>自注意力要求键与查询一样多（现在 n_q = %1，n_k = %2）；请先添加或删除词元</translation>
    </message>
    <message>
        <location line="-98" />
        <source>Separate key sequence (cross-&amp;attention)</source>
        <translation>独立的键序列（交叉注意力）(&amp;A)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Keys and values come from their own tokens instead of the queries' tokens</source>
        <translation>键和值来自自己的词元序列，而不是查询的词元</translation>
    </message>
    <message>
        <location line="+68" />
        <source>Set d_k to %1</source>
        <translation>将 d_k 设为 %1</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Set d_v to %1</source>
        <translation>将 d_v 设为 %1</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Set d_model to %1</source>
        <translation>将 d_model 设为 %1</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Set d_out to %1</source>
        <translation>将 d_out 设为 %1</translation>
    </message>
    <message>
        <location line="+7" />
        <source>Add W_O</source>
        <translation>添加 W_O</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Remove W_O</source>
        <translation>移除 W_O</translation>
    </message>
    <message>
        <location line="+13" />
        <source>Separate key sequence</source>
        <translation>独立的键序列</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <location line="+88" />
        <source>There is no table to import into</source>
        <translation>没有可导入的表格</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Nothing was imported: %1</source>
        <translation>未导入任何内容：%1</translation>
    </message>
    <message>
        <location line="+14" />
        <source>There is no table to export</source>
        <translation>没有可导出的表格</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Nothing was written: %1</source>
        <translation>未写入任何内容：%1</translation>
    </message>
    <message>
        <location line="+11" />
        <source>Matrices (*.csv *.npy);;CSV, comma separated (*.csv);;NumPy array (*.npy)</source>
        <translation>矩阵 (*.csv *.npy);;CSV，逗号分隔 (*.csv);;NumPy 数组 (*.npy)</translation>
    </message>
    <message>
        <location line="+10" />
        <source>Import %1</source>
        <translation>导入 %1</translation>
    </message>
    <message>
        <location line="+11" />
        <source>Export %1</source>
        <translation>导出 %1</translation>
    </message>
    <message>
        <location line="+16" />
        <source>&amp;Import from .csv or .npy…</source>
        <translation>从 .csv 或 .npy 导入(&amp;I)…</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Export to .csv or .npy…</source>
        <translation>导出为 .csv 或 .npy(&amp;E)…</translation>
    </message>
    <message>
        <location line="+52" />
        <source>Self-attention: Q = X·W_Q, K = X·W_K and V = X·W_V all come from the same X (%1 × %2): Q and K are %1 × %3, V is %1 × %4.</source>
        <extracomment>%1 tokens, %2 d_model, %3 the width of Q and K, %4 of V.</extracomment>
        <translation>自注意力：Q = X·W_Q、K = X·W_K、V = X·W_V 都来自同一个 X（%1 × %2）：Q 和 K 是 %1 × %3，V 是 %1 × %4。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Cross-attention: Q = X·W_Q comes from the queries' sequence X (%1 × %3), K = S·W_K and V = S·W_V from the source S (%2 × %3): Q is %1 × %4, K %2 × %4, V %2 × %5.</source>
        <extracomment>%1 query tokens, %2 key tokens, %3 d_model, %4 the width of Q and K, %5 of V.</extracomment>
        <translation>交叉注意力：Q = X·W_Q 来自查询所在的序列 X（%1 × %3），K = S·W_K 和 V = S·W_V 来自源序列 S（%2 × %3）：Q 是 %1 × %4，K 是 %2 × %4，V 是 %2 × %5。</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Self-attention: Q, K and V belong to the same tokens: Q and K are %1 × %2, V is %1 × %3.</source>
        <extracomment>%1 tokens, %2 the width of Q and K, %3 of V.</extracomment>
        <translation>自注意力：Q、K、V 属于同一组词元：Q 和 K 是 %1 × %2，V 是 %1 × %3。</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Q holds the queries (%1 × %3); K and V hold the keys and their values (%2 × %3 and %2 × %4), each with tokens of its own.</source>
        <extracomment>%1 queries, %2 keys, %3 the width of Q and K, %4 of V.</extracomment>
        <translation>Q 存放查询（%1 × %3）；K 和 V 存放键及其值（%2 × %3 和 %2 × %4），它们各有自己的词元。</translation>
    </message>
    <message>
        <location line="+29" />
        <source>Pick Q, K, V, X or S to edit tokens</source>
        <translation>选中 Q、K、V、X 或 S 页才能编辑词元</translation>
    </message>
    <message>
        <location line="+76" />
        <source>Switch to projected mode</source>
        <translation>切换到投影模式</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Projected mode: X is one-hot and W_Q, W_K, W_V hold the old Q, K, V. The positional encoding is now added to X, so the numbers change.</source>
        <translation>投影模式：X 为 one-hot，W_Q、W_K、W_V 存放原来的 Q、K、V。位置编码现在加到 X 上，因此数值会变化。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Projected mode: X is one-hot and W_Q, W_K, W_V hold the old Q, K, V, so every number stays the same.</source>
        <translation>投影模式：X 为 one-hot，W_Q、W_K、W_V 存放原来的 Q、K、V，因此所有数值保持不变。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Switch to direct mode</source>
        <translation>切换到直接模式</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Direct mode keeps the computed Q, K and V; W_O is dropped.</source>
        <translation>直接模式保留已算出的 Q、K 和 V；W_O 被舍弃。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Direct mode keeps the computed Q, K and V.</source>
        <translation>直接模式保留已算出的 Q、K 和 V。</translation>
    </message>
    <message>
        <location line="+14" />
        <source>t%1</source>
        <translation>t%1</translation>
    </message>
    <message>
        <location line="+0" />
        <source>k%1</source>
        <translation>k%1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Add token %1</source>
        <translation>添加词元 %1</translation>
    </message>
    <message>
        <location line="+12" />
        <source>The last token cannot be removed: attention needs at least one query and one key</source>
        <translation>不能删除最后一个词元：注意力至少需要一个查询和一个键</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Remove token %1</source>
        <translation>删除词元 %1</translation>
    </message>
    <message>
        <location line="+16" />
        <source>Move token %1</source>
        <translation>移动词元 %1</translation>
    </message>
</context>
<context>
    <name>attn::MisprintNote</name>
    <message>
        <location filename="../../app/views/stageviews.cpp" line="-141" />
        <source>%1: the handout prints %2; the formula gives %3</source>
        <extracomment>Under the maps, where a lesson's source document prints a wrong number: the stage's name, the printed numbers, the numbers the formula gives.</extracomment>
        <translation>%1：讲义印的是 %2；按公式算得 %3</translation>
    </message>
</context>
<context>
    <name>attn::ModelMode</name>
    <message>
        <location filename="../../app/modes/modelmode.cpp" line="+115" />
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <location line="+14" />
        <source>Generate &amp;token by token</source>
        <translation>逐词元生成(&amp;T)</translation>
    </message>
    <message>
        <location line="+147" />
        <source>The model %1 from the training lab</source>
        <translation>来自训练实验室的模型 %1</translation>
    </message>
    <message>
        <location line="-186" />
        <source>&amp;Model mode</source>
        <translation>模型模式(&amp;M)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>A real transformer reading a sentence: every layer and head (the built-in model unless you opened one)</source>
        <translation>一个真正的 Transformer 读一个句子：每一层、每个头（除非另外打开了模型，否则用内置模型）</translation>
    </message>
    <message>
        <location line="+107" />
        <source>a model is being opened; wait for it or cancel it</source>
        <translation>正在打开一个模型；请等待它完成或取消</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Opening the model %1…</source>
        <translation>正在打开模型 %1…</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+49" />
        <source>built in</source>
        <translation>内置</translation>
    </message>
    <message>
        <location line="-19" />
        <source>The model %1 was not opened: %2</source>
        <translation>未能打开模型 %1：%2</translation>
    </message>
    <message>
        <location line="-104" />
        <source>The model writes on, one token a step: the distribution of each next token, and the KV cache that spares it the whole triangle</source>
        <translation>模型一步写一个词元往下写：每个下一个词元的分布，以及让它不必重算整个三角形的 KV 缓存</translation>
    </message>
    <message>
        <location line="+107" />
        <source>Cannot open the model %1</source>
        <translation>无法打开模型 %1</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Opened the model %1</source>
        <translation>已打开模型 %1</translation>
    </message>
    <message>
        <location line="+10" />
        <source>The built-in model was not opened: %1</source>
        <translation>未能打开内置模型：%1</translation>
    </message>
    <message>
        <location line="+32" />
        <source>%1 is now the lab's document; Edit ▸ Undo brings back what was open before</source>
        <translation>%1 现在是实验室的文档；编辑 ▸ 撤销可恢复之前打开的内容</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Export figure</source>
        <translation>导出图片</translation>
    </message>
    <message>
        <location line="+2" />
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Nothing to export yet: type a sentence the model can read</source>
        <translation>还没有可导出的内容：请输入模型能读的句子</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
</context>
<context>
    <name>attn::ModelView</name>
    <message>
        <location filename="../../app/views/modelview.cpp" line="+456" />
        <source>Take layer %1, head %2 into the lab</source>
        <translation>把第 %1 层第 %2 个头带进实验室</translation>
    </message>
    <message>
        <location line="+18" />
        <location line="+784" />
        <source>Export figure…</source>
        <translation>导出图片…</translation>
    </message>
    <message>
        <location line="-651" />
        <source>Type a sentence for the model to read.</source>
        <translation>输入一个句子，让模型来读。</translation>
    </message>
    <message>
        <location line="+4" />
        <location line="+754" />
        <source>Tokens:</source>
        <translation>词元：</translation>
    </message>
    <message>
        <location line="-687" />
        <location line="+689" />
        <source>Tokens (%1):</source>
        <translation>词元（%1 个）：</translation>
    </message>
    <message>
        <location line="-680" />
        <source>L%1</source>
        <translation>第%1层</translation>
    </message>
    <message>
        <location line="+1" />
        <source>H%1</source>
        <translation>头%1</translation>
    </message>
    <message>
        <location line="+5" />
        <source>H̄ %1 nats</source>
        <translation>H̄ %1 奈特</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Layer %1, head %2: %3</source>
        <translation>第 %1 层，头 %2：%3</translation>
    </message>
    <message>
        <location line="+9" />
        <source>%1: every head's softmax weights for “%2”</source>
        <translation>%1：“%2”的每个头的 softmax 权重</translation>
    </message>
    <message>
        <location line="+38" />
        <source> %1 (uniform %2)</source>
        <translation> %1（均匀 %2）</translation>
    </message>
    <message>
        <location line="+1" />
        <source> · mean entropy %1 nats · previous token %2 · first token %3 · itself %4</source>
        <translation> · 平均熵 %1 奈特 · 前一个词元 %2 · 第一个词元 %3 · 自身 %4</translation>
    </message>
    <message>
        <location line="+243" />
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <location line="+1" />
        <source>dimension of the head</source>
        <translation>头的维度</translation>
    </message>
    <message>
        <location line="+2" />
        <source>%1 of layer %2, head %3 (%4 × %5)</source>
        <translation>第 %2 层头 %3 的 %1（%4 × %5）</translation>
    </message>
    <message>
        <location line="+47" />
        <source>piece %1, id %2</source>
        <translation>片段 %1，编号 %2</translation>
    </message>
    <message>
        <location line="+66" />
        <source>%1 · layer %2, head %3</source>
        <translation>%1 · 第 %2 层，头 %3</translation>
    </message>
    <message>
        <location line="+21" />
        <source>previous token</source>
        <translation>前一个词元</translation>
    </message>
    <message>
        <location line="+2" />
        <source>first token (sink)</source>
        <translation>第一个词元（汇点）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>self</source>
        <translation>自身</translation>
    </message>
    <message>
        <location line="+7" />
        <source>broad</source>
        <translation>分散</translation>
    </message>
    <message>
        <location line="-5" />
        <source>induction</source>
        <translation>归纳</translation>
    </message>
    <message>
        <location line="-435" />
        <location line="+646" />
        <source>✕ knocked out</source>
        <extracomment>Under a head's map in the grid when the head is knocked out (its output replaced).</extracomment>
        <translation>✕ 已敲除</translation>
    </message>
    <message>
        <location line="-643" />
        <source>Knocked out: it reads as before, but what it writes is replaced</source>
        <translation>已敲除：它照常读取，但写入的内容被替换</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Click to show this head; right-click to knock it out</source>
        <translation>单击显示这个头；右击可敲除它</translation>
    </message>
    <message>
        <location line="+161" />
        <source>Scores → weights</source>
        <translation>分数 → 权重</translation>
    </message>
    <message>
        <location line="+0" />
        <location line="+2" />
        <location line="+2" />
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location line="-2" />
        <source>Scores, scaled</source>
        <translation>分数、缩放</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Masked, weights</source>
        <translation>掩码、权重</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Scores</source>
        <translation>分数</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Scaled</source>
        <translation>缩放</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Masked</source>
        <translation>掩码</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+1" />
        <source>At this size the maps are shown over pages, so that their cells keep their numbers</source>
        <translation>在这个尺寸下，各图分页显示，使格子里的数字保持可见</translation>
    </message>
    <message>
        <location line="+103" />
        <source>Self-attention: Q, K and V come from the same sequence, the %1 tokens' states after layer %2's first LayerNorm (%1 × %3), times this head's W_Q, W_K and W_V (%3 × %4 each): q, k and v are each %1 × %4. (In cross-attention Q would come from the decoder's tokens and K, V from the encoder's.)</source>
        <extracomment>%1 tokens, %2 the layer, %3 the model's width, %4 a head's width.</extracomment>
        <translation>自注意力：Q、K、V 来自同一个序列，即这 %1 个词元经过第 %2 层第一个 LayerNorm 之后的状态（%1 × %3），分别乘以这个头的 W_Q、W_K、W_V（各为 %3 × %4）：q、k、v 各为 %1 × %4。（在交叉注意力中，Q 来自解码器的词元，K 和 V 来自编码器的。）</translation>
    </message>
    <message>
        <location line="+38" />
        <source>cached</source>
        <translation>缓存</translation>
    </message>
    <message>
        <location line="+0" />
        <source>new</source>
        <translation>新算</translation>
    </message>
    <message>
        <location line="+1" />
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location line="+1" />
        <source>cached: the row was kept from the previous forward; new: computed for this one</source>
        <translation>缓存：这一行保留自上一次前向计算；新算：为这一次计算的</translation>
    </message>
    <message>
        <location line="+125" />
        <source>duplicate token</source>
        <extracomment>A head whose rows look at earlier copies of their own token.</extracomment>
        <translation>重复词元</translation>
    </message>
    <message>
        <location line="+5" />
        <source>focused</source>
        <extracomment>A head that reads few keys, none of them a fixed position (not the previous, first or same token).</extracomment>
        <translation>聚焦</translation>
    </message>
    <message>
        <location line="+2" />
        <source>too short to tell</source>
        <translation>太短，无法判断</translation>
    </message>
    <message>
        <location line="+8" />
        <source>%1: %2 (uniform %3)</source>
        <translation>%1：%2（均匀 %3）</translation>
    </message>
    <message>
        <location line="+8" />
        <source>induction: no token of this text repeats an earlier one</source>
        <translation>归纳：这段文字中没有重复前面出现过的词元</translation>
    </message>
    <message>
        <location line="+4" />
        <source>duplicate token: no token of this text repeats</source>
        <translation>重复词元：这段文本没有重复的词元</translation>
    </message>
    <message>
        <location line="+1" />
        <source>spread (entropy ÷ ln open keys): %1 (uniform 1.00) · largest weight %2</source>
        <translation>分散度（熵 ÷ ln 可见键数）：%1（均匀 1.00）· 最大权重 %2</translation>
    </message>
    <message>
        <location line="+1" />
        <source>mean entropy %1 nats</source>
        <translation>平均熵 %1 奈特</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The label: the highest score that is at least %1 and %2 times its uniform; with none, broad (spread at least %3) or focused</source>
        <translation>标签：取至少为 %1 且至少是其均匀值 %2 倍的分数中最高的那一个；若没有，分散度至少 %3 时为“分散”，否则为“聚焦”</translation>
    </message>
    <message>
        <location line="+9" />
        <source>No model open: Lessons ▸ A real transformer, or File ▸ Open model…</source>
        <translation>没有打开模型：课程 ▸ 真正的 Transformer，或 文件 ▸ 打开模型…</translation>
    </message>
    <message>
        <location line="+2" />
        <source>built-in</source>
        <translation>内置</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1 (%2) · %3 layers × %4 heads · n_embd %5 · %6 parameters · %7</source>
        <translation>%1（%2）· %3 层 × %4 个头 · n_embd %5 · %6 个参数 · %7</translation>
    </message>
    <message>
        <location line="+74" />
        <source>Bring layer %1, head %2 back</source>
        <translation>恢复第 %1 层第 %2 个头</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Knock out layer %1, head %2: its output set to zero</source>
        <translation>敲除第 %1 层第 %2 个头：输出置零</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Knock out layer %1, head %2: its output replaced by its mean over the probe</source>
        <translation>敲除第 %1 层第 %2 个头：输出换成它在探针集上的均值</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Bring every head back</source>
        <translation>恢复所有的头</translation>
    </message>
    <message>
        <location line="+27" />
        <source>layer %1, head %2 (its mean)</source>
        <translation>第 %1 层第 %2 个头（均值）</translation>
    </message>
    <message>
        <location line="+0" />
        <source>layer %1, head %2 (zero)</source>
        <translation>第 %1 层第 %2 个头（置零）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&lt;b&gt;Next token&lt;/b&gt; after the last position (top 5), &lt;b&gt;without&lt;/b&gt; %1</source>
        <translation>最后位置之后的&lt;b&gt;下一个词元&lt;/b&gt;（前 5），&lt;b&gt;去掉&lt;/b&gt; %1</translation>
    </message>
    <message>
        <location line="+0" />
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <location line="+4" />
        <source>With every head: %1</source>
        <translation>所有头都在时：%1</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Loss on the probe's second copies (random tokens said twice: what the first copy gives away): %1 nats with every head, %2 without</source>
        <translation>探针第二遍上的损失（随机词元说两遍：第一遍已泄露答案）：所有头都在时 %1 nats，去掉后 %2</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Right-click a head in the grid to bring it back.</source>
        <translation>在网格里右击一个头即可恢复它。</translation>
    </message>
    <message>
        <location line="+11" />
        <source>Every head's scores over the standard probe: %1 random token sequences of %2, each said twice (seed %3). Each is a mean weight, beside its uniform baseline in brackets. Click a column to sort; double-click a row to show that head.</source>
        <translation>每个头在标准探针上的得分：%1 条长 %2 的随机词元序列，各说两遍（种子 %3）。每个得分是平均权重，括号里是均匀基线。单击列标题排序；双击一行显示那个头。</translation>
    </message>
    <message>
        <location line="+7" />
        <source>These are the scores with the knocked-out heads removed.</source>
        <translation>这些是去掉被敲除的头之后的得分。</translation>
    </message>
    <message>
        <location line="+31" />
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location line="+0" />
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <location line="+14" />
        <source>Back to the lab</source>
        <translation>回到实验室</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Leave the model mode; the lab's document is as you left it</source>
        <translation>离开模型模式；实验室里的文档保持原样</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Sentence:</source>
        <translation>句子(&amp;S)：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Type a sentence; the model reads it as you type</source>
        <translation>输入一个句子；模型边输入边读</translation>
    </message>
    <message>
        <location line="+5" />
        <source>&lt;b&gt;Every layer × head&lt;/b&gt;: the softmax weights (click one to show it)</source>
        <translation>&lt;b&gt;每一层 × 每个头&lt;/b&gt;：softmax 权重（点击一个查看）</translation>
    </message>
    <message>
        <location line="+21" />
        <source>This model is big: a key typed at the end of a 32-token sentence takes about %1 million multiply-adds, even with the earlier positions kept (GPT-2 small: 210 million). Typing would lag, so the views are recomputed when you press Enter or pause typing.</source>
        <translation>这个模型很大：即使保留前面各位置的结果，在 32 个词元的句子末尾每敲一个键也约需 %1 百万次乘加（GPT-2 small：2.1 亿次）。逐键计算会卡顿，因此按回车或停止输入时才重新计算各视图。</translation>
    </message>
    <message>
        <location line="-111" />
        <location line="+91" />
        <source>&lt;b&gt;Next token&lt;/b&gt; after the last position (top 5)</source>
        <translation>最后一个位置之后的&lt;b&gt;下一个词元&lt;/b&gt;（前 5 名）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <location line="+0" />
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Layer</source>
        <translation>层(&amp;L)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Head</source>
        <translation>头(&amp;H)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Take this head into the lab</source>
        <translation>把这个头带进实验室</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The head's q, k and v for this sentence become the lab's Q, K and V (causal, scaled by √d_k): one step you can undo</source>
        <translation>这个头在本句上的 q、k、v 成为实验室的 Q、K、V（因果掩码，除以 √d_k）：一步操作，可以撤销</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Scores → weights → output</source>
        <translation>打分 → 权重 → 输出</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Q, K, V</source>
        <translation>Q、K、V</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Head scores</source>
        <translation>头的得分</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Sinks</source>
        <translation>注意力汇聚</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Attention sinks: each head's weight on the first token, and a sliding window with and without the first tokens kept (StreamingLLM)</source>
        <translation>注意力汇聚（attention sink）：每个头放在第一个词元上的权重，以及保留与不保留开头词元的滑动窗口（StreamingLLM）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <location line="+0" />
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <location line="+0" />
        <source>label</source>
        <translation>标签</translation>
    </message>
</context>
<context>
    <name>attn::NotesPanel</name>
    <message>
        <location filename="../../app/views/notespanel.cpp" line="+41" />
        <source>The notes are hidden while the answers are hidden: they give the numbers away.</source>
        <translation>答案隐藏时笔记也隐藏：笔记里有答案的数字。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>This lesson has no notes. A lesson file can carry them under the key "notes".</source>
        <translation>本课没有笔记。课程文件可以在 "notes" 键下写笔记。</translation>
    </message>
</context>
<context>
    <name>attn::OnlineSoftmaxPanel</name>
    <message>
        <location filename="../../app/views/onlinepanel.cpp" line="+52" />
        <source>Keys a tile (B):</source>
        <translation>每块的键数 (B)：</translation>
    </message>
    <message>
        <location line="+5" />
        <source>B: how many keys are read at a time (FlashAttention's block of K and V)</source>
        <translation>B：一次读取多少个键（FlashAttention 中 K 和 V 的分块）</translation>
    </message>
    <message>
        <location line="+17" />
        <source>First tile</source>
        <translation>第一块</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Previous tile</source>
        <translation>上一块</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Next tile</source>
        <translation>下一块</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Last tile</source>
        <translation>最后一块</translation>
    </message>
    <message>
        <location line="+21" />
        <source>Why the softmax subtracts the maximum</source>
        <translation>softmax 为什么要减去最大值</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Shift the row until its largest score is</source>
        <translation>平移这一行，使其最大分数为</translation>
    </message>
    <message>
        <location line="+113" />
        <source>No keys to read.</source>
        <translation>没有可读取的键。</translation>
    </message>
    <message>
        <location line="+9" />
        <source>&lt;b&gt;Tile %1 of %2:&lt;/b&gt; keys %3–%4 &amp;nbsp; &lt;span style='color:#666'&gt;(query %5, head %6)&lt;/span&gt;</source>
        <extracomment>%1 and %2 count the tiles, %3 and %4 are the first and last key read, %5 the query, %6 the head.</extracomment>
        <translation>&lt;b&gt;第 %1 块，共 %2 块：&lt;/b&gt;键 %3–%4 &amp;nbsp; &lt;span style='color:#666'&gt;（查询 %5，头 %6）&lt;/span&gt;</translation>
    </message>
    <message>
        <location line="+9" />
        <source>softmax₁: the row starts as if a key of score 0 and value 0 had been read (m = 0, ℓ = 1, o = 0). Each tile raises the running maximum m if it must, rescales what was summed so far by e^(m_old − m), and adds its own keys.</source>
        <translation>softmax₁：这一行开始时，就像已经读过一个分数为 0、值为 0 的键（m = 0，ℓ = 1，o = 0）。每一块在需要时抬高运行最大值 m，把此前累加的结果乘以 e^(m_old − m) 重新缩放，再加上本块的键。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>The n × n weights are never stored: each tile raises the running maximum m if it must, rescales what was summed so far by e^(m_old − m), and adds its own keys. o is kept divided by ℓ, so after the last tile it is the output row.</source>
        <translation>n × n 的权重从不存储：每一块在需要时抬高运行最大值 m，把此前累加的结果乘以 e^(m_old − m) 重新缩放，再加上本块的键。o 始终保存为除以 ℓ 之后的值，所以读完最后一块，它就是输出行。</translation>
    </message>
    <message>
        <location line="+16" />
        <source>Every key read so far is blocked: m = −∞, ℓ = 0, o = 0.</source>
        <translation>目前读到的键都被屏蔽：m = −∞，ℓ = 0，o = 0。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Every key of this tile is blocked: m, ℓ and o stay as they were.</source>
        <translation>这一块的键全部被屏蔽：m、ℓ 和 o 保持不变。</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Read: keys 1–%1 of %2. The keys after them are not read yet; only m, ℓ and o are kept for this row.</source>
        <translation>已读：第 1–%1 个键（共 %2 个）。后面的键还没读；这一行只保留 m、ℓ 和 o。</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Every key is blocked: the row has no weights and its output is 0.</source>
        <translation>所有键都被屏蔽：这一行没有权重，输出为 0。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>All keys read: o is the output row, and e^(s_j − m) / ℓ the weights. Largest difference to the ordinary softmax: weights %1, output %2 (rounding).</source>
        <extracomment>%1 and %2 are the largest differences, e.g. 2.2e-16.</extracomment>
        <translation>所有键已读完：o 就是输出行，e^(s_j − m) / ℓ 就是权重。与普通 softmax 的最大差异：权重 %1，输出 %2（舍入误差）。</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Memory traffic of this head's %1 scores: the safe softmax reads and writes %2 (4 a score: the maximum, the sum, then read and write to divide), the online softmax %3 (3 a score). Fused with the weighted sum, as here, the scores live in one tile at a time: the n_q × n_k matrix is never stored.</source>
        <extracomment>%1 = n_q × n_k scores, %2 the safe softmax's reads and writes, %3 the online one's.</extracomment>
        <translation>这个头 %1 个分数的访存量：安全 softmax 读写 %2 次（每个分数 4 次：求最大值、求和、再读一次并写回做除法），在线 softmax %3 次（每个分数 3 次）。像这里这样与加权求和融合时，分数每次只存在于一个块中：n_q × n_k 矩阵从不存储。</translation>
    </message>
    <message>
        <location line="+35" />
        <source>Every key of this row is blocked: nothing to exponentiate.</source>
        <translation>这一行的键全部被屏蔽：没有需要取指数的分数。</translation>
    </message>
    <message>
        <location line="+10" />
        <source>The scaled scores of query %2, each plus %1: adding one number to a whole row changes none of its weights. In double precision e^x overflows past x ≈ 709.78.</source>
        <extracomment>%1 the shift added, %2 the query.</extracomment>
        <translation>查询 %2 的缩放分数，每个都加上 %1：给整行加同一个数，不改变任何权重。在双精度下，x 超过约 709.78 时 e^x 就会溢出。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>s</source>
        <translation>s</translation>
    </message>
    <message>
        <location line="+0" />
        <source>e^s</source>
        <translation>e^s</translation>
    </message>
    <message>
        <location line="+0" />
        <source>e^s / Σ e^s (as written)</source>
        <translation>e^s / Σ e^s（照公式直接算）</translation>
    </message>
    <message>
        <location line="+0" />
        <source>s − max</source>
        <translation>s − max</translation>
    </message>
    <message>
        <location line="+0" />
        <source>e^(s − max)</source>
        <translation>e^(s − max)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>weights (shifted)</source>
        <translation>权重（平移后）</translation>
    </message>
    <message>
        <location line="+24" />
        <source>As written, e^s overflows to inf and inf / inf is NaN: the row is lost. Shifted by its maximum, the largest exponential is e^0 = 1 and nothing overflows; the weights are the lesson's own.</source>
        <translation>直接计算时 e^s 溢出为 inf，inf / inf 得到 NaN：这一行就丢了。减去最大值之后，最大的指数是 e^0 = 1，不会溢出；权重与本课的权重完全相同。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Nothing overflows at this shift: both ways give the same weights. Raise the largest score past 709.78 to see e^s overflow.</source>
        <translation>在这个平移量下没有溢出：两种算法得到相同的权重。把最大分数调到 709.78 以上，就能看到 e^s 溢出。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>The first %1 of %2 keys are shown.</source>
        <translation>显示前 %1 个键（共 %2 个）。</translation>
    </message>
</context>
<context>
    <name>attn::PlaneDragTool</name>
    <message>
        <location filename="../../app/views/planedragtool.cpp" line="+129" />
        <location line="+16" />
        <source>Drag %1</source>
        <extracomment>An undo step: a vector dragged in the plane ("Drag query q1").</extracomment>
        <translation>拖动 %1</translation>
    </message>
    <message>
        <location line="+56" />
        <source>Nudge %1</source>
        <extracomment>An undo step: a vector moved with an arrow key ("Nudge query q1").</extracomment>
        <translation>微调 %1</translation>
    </message>
</context>
<context>
    <name>attn::PlanePanel</name>
    <message>
        <location filename="../../app/views/planepanel.cpp" line="+22" />
        <source>Axes:</source>
        <translation>坐标轴：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The vectors have more than two dimensions: choose two to show, or PCA</source>
        <translation>向量超过两维：选择要显示的两个维度，或使用 PCA</translation>
    </message>
    <message>
        <location line="+3" />
        <source>The dimension on the horizontal axis</source>
        <translation>横轴显示的维度</translation>
    </message>
    <message>
        <location line="+3" />
        <source>The dimension on the vertical axis</source>
        <translation>纵轴显示的维度</translation>
    </message>
    <message>
        <location line="+3" />
        <source>PCA</source>
        <translation>PCA</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Project every key and query onto their two principal directions (for more than two dimensions); dragging moves within that plane</source>
        <translation>把所有键和查询投影到它们的两个主方向上（适用于两维以上）；拖动只在这个平面内移动</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Snap:</source>
        <translation>吸附：</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Dragged and nudged vectors land on this grid, for numbers you can check by hand</source>
        <translation>拖动或微调后的向量落在此网格上，数值便于手算核对</translation>
    </message>
    <message>
        <location line="+3" />
        <source>off</source>
        <extracomment>Snapping to a grid is off.</extracomment>
        <translation>关</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Drag keys</source>
        <translation>可拖动键</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Let the keys be dragged too (Shift picks a key over a query on the same spot)</source>
        <translation>键也可以拖动（与查询重叠时，按住 Shift 选中的是键）</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Fit</source>
        <extracomment>A button: zoom the plane so that every vector is in view.</extracomment>
        <translation>适配</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Frame every vector (F)</source>
        <translation>缩放视图以显示所有向量（F）</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Window</source>
        <extracomment>A button: open the plane in a window of its own.</extracomment>
        <translation>新窗口</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Open the plane in a window of its own, to make it large on the projector</source>
        <translation>在独立窗口中打开向量平面，便于在投影上放大</translation>
    </message>
    <message>
        <location line="+190" />
        <source>Vector plane — Attention Lab</source>
        <translation>向量平面 — Attention Lab</translation>
    </message>
    <message>
        <location line="+20" />
        <location line="+1" />
        <source>d%1</source>
        <translation>d%1</translation>
    </message>
</context>
<context>
    <name>attn::PlanePlot</name>
    <message>
        <location filename="../../widgets/planeplot.cpp" line="+1304" />
        <source>−∇ %1</source>
        <translation>−∇ %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>−∇ %1 (drawn ×%2)</source>
        <translation>−∇ %1（画为 ×%2）</translation>
    </message>
    <message>
        <location line="-911" />
        <source>key (width: weight)</source>
        <translation>键（粗细：权重）</translation>
    </message>
    <message>
        <location line="+0" />
        <source>key: width and disc grow with its weight</source>
        <translation>键：线宽和圆点随权重增大</translation>
    </message>
    <message>
        <location line="+1" />
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <location line="+0" />
        <source>query: drag it</source>
        <translation>查询：可拖动</translation>
    </message>
    <message>
        <location line="+18" />
        <source>value v = x·W_V</source>
        <translation>值 v = x·W_V</translation>
    </message>
    <message>
        <location line="+0" />
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <location line="+1" />
        <source>output Σ w·v</source>
        <translation>输出 Σ w·v</translation>
    </message>
    <message>
        <location line="+0" />
        <source>output = Σ weight · value</source>
        <translation>输出 = Σ 权重 · 值</translation>
    </message>
    <message>
        <location line="+2" />
        <source>(d_v = %1: output in the Output map)</source>
        <translation>（d_v = %1：输出见“输出”热图）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>(values have d_v = %1: the output is in the Output map)</source>
        <translation>（值的维度 d_v = %1：输出见“输出”热图）</translation>
    </message>
    <message>
        <location line="+97" />
        <source>Vector plane</source>
        <translation>向量平面</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Drag a query (orange) and watch the keys' weights change. Arrow keys nudge the selected vector; Page Up/Down selects the previous or next query; with Drag keys on, Shift+Page Up/Down selects a key. Right-drag pans, the wheel or +/− zooms, F fits, Escape cancels a drag.</source>
        <translation>拖动查询（橙色），观察各个键的权重如何变化。方向键微调选中的向量；Page Up/Down 选择上一个或下一个查询；开启“可拖动键”后，Shift+Page Up/Down 选择键。右键拖动可平移，滚轮或 +/− 缩放视图，F 适配视图，Escape 取消拖动。</translation>
    </message>
    <message>
        <location line="+541" />
        <source>Drag a query; right-drag to pan, the wheel to zoom, F to fit.</source>
        <translation>拖动查询；右键拖动可平移，滚轮可缩放视图，按 F 适配视图。</translation>
    </message>
    <message>
        <location line="+7" />
        <source>%1 at %2 (projected)
Drag it to move it; the arrow keys nudge it.</source>
        <translation>%1 位于 %2（投影）
拖动可移动它；方向键可微调。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1 at %2
Drag it to move it; the arrow keys nudge it.</source>
        <translation>%1 位于 %2
拖动可移动它；方向键可微调。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>%1 at %2 (projected)</source>
        <translation>%1 位于 %2（投影）</translation>
    </message>
    <message>
        <location line="+0" />
        <source>%1 at %2</source>
        <translation>%1 位于 %2</translation>
    </message>
    <message>
        <location line="+3" />
        <source>blocked for query %1</source>
        <translation>对查询 %1 已屏蔽</translation>
    </message>
    <message>
        <location line="+2" />
        <source>weight for query %1: %2</source>
        <translation>对查询 %1 的权重：%2</translation>
    </message>
    <message>
        <location line="+18" />
        <source>Drag it to move it (Shift picks the key over a query on the same spot).</source>
        <translation>拖动可移动它（与查询重叠时，按住 Shift 选中的是键）。</translation>
    </message>
    <message>
        <location line="+502" />
        <source>query %1</source>
        <translation>查询 %1</translation>
    </message>
    <message>
        <location line="+3" />
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location line="+46" />
        <source>%1 blocked</source>
        <translation>%1 已屏蔽</translation>
    </message>
    <message>
        <location line="+44" />
        <source>v %1</source>
        <translation>v %1</translation>
    </message>
    <message>
        <location line="-614" />
        <source>weight for query %1: hidden (predict it)</source>
        <translation>查询 %1 的权重：已隐藏（请预测）</translation>
    </message>
    <message>
        <location line="-672" />
        <source>circles: distance to q</source>
        <translation>圆：到 q 的距离</translation>
    </message>
    <message>
        <location line="+1" />
        <source>dashed circles: each key's distance to the query</source>
        <translation>虚线圆：每个键到查询的距离</translation>
    </message>
    <message>
        <location line="+3" />
        <source>unit circle, angles</source>
        <translation>单位圆、夹角</translation>
    </message>
    <message>
        <location line="+1" />
        <source>unit circle: cosine compares directions (the angles)</source>
        <translation>单位圆：余弦比较的是方向（夹角）</translation>
    </message>
    <message>
        <location line="+3" />
        <source>dashed: projection on q</source>
        <translation>虚线：在 q 上的投影</translation>
    </message>
    <message>
        <location line="+1" />
        <source>dashed: each key's projection onto the query's line</source>
        <translation>虚线：每个键在查询所在直线上的投影</translation>
    </message>
    <message>
        <location line="+668" />
        <source>distance to the query in the picture: %1</source>
        <translation>图中到查询的距离：%1</translation>
    </message>
    <message>
        <location line="+4" />
        <source>angle to the query: %1° (cos %2)</source>
        <translation>与查询的夹角：%1°（cos %2）</translation>
    </message>
    <message>
        <location line="+5" />
        <source>projection onto the query's direction: %1</source>
        <translation>在查询方向上的投影：%1</translation>
    </message>
    <message>
        <location line="+3" />
        <source>in this plane: %1% of its ‖k‖²</source>
        <translation>在此平面中：其 ‖k‖² 的 %1%</translation>
    </message>
    <message>
        <location line="+575" />
        <source>θ = %1°</source>
        <translation>θ = %1°</translation>
    </message>
</context>
<context>
    <name>attn::PlaneScene</name>
    <message>
        <location filename="../../widgets/planescene.cpp" line="+48" />
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <location line="+0" />
        <source>d_k</source>
        <translation>d_k</translation>
    </message>
    <message>
        <location line="+2" />
        <source>%1 = 1: the vectors lie on a line (two dimensions are needed for a plane).</source>
        <translation>%1 = 1：向量都在一条直线上（平面需要两个维度）。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1 = 1: the vectors lie on a line (two dimensions are needed for a plane); drag along it.</source>
        <translation>%1 = 1：向量都在一条直线上（平面需要两个维度）；请沿直线拖动。</translation>
    </message>
    <message>
        <location line="+7" />
        <source>Head %1's columns of Q and K, drawn exactly.</source>
        <translation>头 %1 对应的 Q、K 列，按原值绘制。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Q and K, drawn exactly.</source>
        <translation>Q 和 K，按原值绘制。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>PCA projection of keys and queries (%1 = %2; the plane holds %3% of their length²).</source>
        <translation>键和查询的 PCA 投影（%1 = %2；平面保留了它们长度平方的 %3%）。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>PCA projection of keys and queries (%1 = %2; the plane holds %3% of their length²); dragging keeps the hidden part.</source>
        <translation>键和查询的 PCA 投影（%1 = %2；平面保留了其长度² 的 %3%）；拖动时不改变隐藏的部分。</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Dimensions %1 and %2 of %3 = %4.</source>
        <translation>%3 = %4 中的第 %1 和第 %2 维。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Dimensions %1 and %2 of %3 = %4; dragging keeps the others.</source>
        <translation>%3 = %4 中的第 %1、%2 维；拖动时其余维度不变。</translation>
    </message>
    <message>
        <location line="+10" />
        <source>Weights of query %1 · head %2 of %3</source>
        <translation>查询 %1 的权重 · 头 %2（共 %3 个）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Weights of query %1</source>
        <translation>查询 %1 的权重</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Embeddings X; Q = X·W_Q, K = X·W_K: each row of X is a query and a key.</source>
        <translation>嵌入 X；Q = X·W_Q，K = X·W_K：X 的每一行既是查询也是键。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Embeddings X (queries) and source S (keys); Q = X·W_Q, K = S·W_K.</source>
        <translation>嵌入 X（查询）和源序列 S（键）；Q = X·W_Q，K = S·W_K。</translation>
    </message>
    <message>
        <location line="+6" />
        <source>RoPE rotates q and k after this: the raw vectors are shown.</source>
        <translation>RoPE 在此之后才旋转 q 和 k：这里显示的是原始向量。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>RoPE rotates q and k after this: the raw vectors are shown and dragged.</source>
        <translation>RoPE 在这之后才旋转 q 和 k：这里显示和拖动的是旋转前的向量。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>The positional encoding is added after: the raw inputs are shown.</source>
        <translation>位置编码在此之后才加上：这里显示的是原始输入。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The positional encoding is added after: the raw inputs are shown and dragged.</source>
        <translation>位置编码在这之后才加上：这里显示和拖动的是原始输入。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Every key is blocked for this query: its weights and output are 0.</source>
        <translation>这个查询的所有键都被屏蔽：它的权重和输出都是 0。</translation>
    </message>
    <message>
        <location line="+6" />
        <source>x: dimension %1</source>
        <translation>x：第 %1 维</translation>
    </message>
    <message>
        <location line="+0" />
        <source>q, k: dimension %1</source>
        <translation>q、k：第 %1 维</translation>
    </message>
    <message>
        <location line="+3" />
        <source>principal direction 1 (projection)</source>
        <translation>主方向 1（投影）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>principal direction 2 (projection)</source>
        <translation>主方向 2（投影）</translation>
    </message>
    <message>
        <location line="+4" />
        <source>(none: one dimension)</source>
        <translation>（无：只有一维）</translation>
    </message>
    <message>
        <location line="+251" />
        <location line="+1" />
        <source>embedding %1</source>
        <translation>嵌入 %1</translation>
    </message>
    <message>
        <location line="-1" />
        <source>query %1</source>
        <translation>查询 %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>source %1</source>
        <translation>源 %1</translation>
    </message>
    <message>
        <location line="+0" />
        <source>key %1</source>
        <translation>键 %1</translation>
    </message>
    <message>
        <location line="-169" />
        <source>In view: %1% of the spread (Σ‖v‖²) of keys and queries</source>
        <translation>视图中：键和查询的分布（Σ‖v‖²）的 %1%</translation>
    </message>
    <message>
        <location line="+5" />
        <source>In view, of each key's ‖k‖²: %1</source>
        <translation>视图中各键 ‖k‖² 的占比：%1</translation>
    </message>
    <message>
        <location line="+2" />
        <source>In view: %1%–%2% of each key's ‖k‖²</source>
        <translation>视图中：各键 ‖k‖² 的 %1%–%2%</translation>
    </message>
    <message>
        <location line="+28" />
        <source>Careful: %1 has the largest weight, yet in this picture it points away from the query; the dimensions not shown decide.</source>
        <translation>注意：%1 的权重最大，但在此图中它背离查询；起决定作用的是未显示的维度。</translation>
    </message>
    <message>
        <location line="+11" />
        <source>Careful: %1 has the largest weight, yet %2 looks closer to the query in this picture; the dimensions not shown decide.</source>
        <translation>注意：%1 的权重最大，但在此图中 %2 看起来离查询更近；起决定作用的是未显示的维度。</translation>
    </message>
</context>
<context>
    <name>attn::PositionalView</name>
    <message>
        <location filename="../../app/views/stageviews.cpp" line="+88" />
        <source>The positional encoding is off.

Without it, attention cannot see word order: reorder the tokens and the maps only reorder.
Turn on sinusoidal, learned or RoPE in the settings panel to see the encoding here.</source>
        <translation>位置编码已关闭。

没有位置编码，注意力看不见语序：调换词元，热图只是跟着重排。
在设置面板中开启正弦、可学习或 RoPE 位置编码，即可在这里查看。</translation>
    </message>
</context>
<context>
    <name>attn::QuizHandout</name>
    <message>
        <location filename="../../widgets/quizhandout.cpp" line="+22" />
        <source>Attention Lab quiz</source>
        <translation>Attention Lab 测验</translation>
    </message>
    <message>
        <location line="+5" />
        <source>All built-in lessons</source>
        <translation>全部内置课程</translation>
    </message>
    <message>
        <location line="+19" />
        <source>1 question</source>
        <translation>共 1 题</translation>
    </message>
    <message>
        <location line="+0" />
        <source>%1 questions</source>
        <translation>共 %1 题</translation>
    </message>
    <message>
        <location line="+11" />
        <location line="+25" />
        <source>More than one choice is right: pick every right one.</source>
        <translation>不止一个选项正确：请选出所有正确选项。</translation>
    </message>
    <message>
        <location line="-19" />
        <location line="+26" />
        <source>Answer key</source>
        <translation>答案与解析</translation>
    </message>
</context>
<context>
    <name>attn::QuizPanel</name>
    <message>
        <location filename="../../app/views/quizpanel.cpp" line="+67" />
        <source>&amp;Check the answer</source>
        <translation>核对答案(&amp;C)</translation>
    </message>
    <message>
        <location line="+8" />
        <source>◀ &amp;Previous</source>
        <translation>◀ 上一题(&amp;P)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Show it live</source>
        <translation>现场演示(&amp;S)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Open the lesson (and the setting) that shows this question live</source>
        <translation>打开能现场演示本题的课程（及设置）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Next ▶</source>
        <translation>下一题(&amp;N) ▶</translation>
    </message>
    <message>
        <location line="+38" />
        <source>No lesson has quiz questions.</source>
        <translation>没有课程带测验题。</translation>
    </message>
    <message>
        <location line="+14" />
        <source>Question %1 of %2</source>
        <translation>第 %1 题，共 %2 题</translation>
    </message>
    <message>
        <location line="+5" />
        <source>More than one choice is right: pick every right one, then check.</source>
        <translation>不止一个选项正确：选出所有正确选项，再核对。</translation>
    </message>
    <message>
        <location line="+39" />
        <source>Right!</source>
        <translation>答对了！</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Not quite: the answer is %1.</source>
        <translation>不对：答案是 %1。</translation>
    </message>
    <message>
        <location line="+38" />
        <source>Score: %1 of %2 answered</source>
        <extracomment>The quiz's score for this session: right answers of questions answered.</extracomment>
        <translation>得分：已答 %2 题，答对 %1 题</translation>
    </message>
</context>
<context>
    <name>attn::Recovery</name>
    <message>
        <location filename="../../app/document/recovery.cpp" line="+161" />
        <source>the document is too large for a recovery file (%1 MB, the limit is %2 MB); save it to keep it</source>
        <translation>文档太大，无法写入恢复文件（%1 MB，上限 %2 MB）；请保存以保留它</translation>
    </message>
    <message>
        <location line="+25" />
        <source>Autosave failed: %1</source>
        <translation>自动保存失败：%1</translation>
    </message>
    <message>
        <location line="+29" />
        <source>Recovered changes</source>
        <translation>恢复的改动</translation>
    </message>
</context>
<context>
    <name>attn::SamplingControls</name>
    <message>
        <location filename="../../app/views/samplingcontrols.cpp" line="+151" />
        <source>Steps:</source>
        <translation>步数：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Temperature:</source>
        <translation>温度：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>0: greedy, always the most likely token; below 1 sharper, above 1 flatter</source>
        <translation>0：贪心，总取最可能的词元；小于 1 更尖锐，大于 1 更平坦</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Top-k:</source>
        <translation>Top-k：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Keep only the k most likely tokens (0: all)</source>
        <translation>只保留最可能的 k 个词元（0：全部）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Top-p:</source>
        <translation>Top-p：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Keep the fewest most likely tokens whose probabilities reach p (1: all)</source>
        <translation>保留概率之和达到 p 的最少的最可能词元（1：全部）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Seed:</source>
        <translation>种子：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The same seed draws the same tokens again</source>
        <translation>相同的种子会再次抽出相同的词元</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Speed:</source>
        <translation>速度：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Time between tokens while playing</source>
        <translation>播放时两个词元之间的时间</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Draw one token and append it</source>
        <translation>抽取一个词元并接在后面</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Step on a timer until the steps are done</source>
        <translation>按定时器逐步生成，直到步数用完</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Back to the start; the seed starts again</source>
        <translation>回到开头；随机种子重新开始</translation>
    </message>
</context>
<context>
    <name>attn::ScalingLabPanel</name>
    <message>
        <location filename="../../app/views/scalinglabpanel.cpp" line="+134" />
        <source>d_k</source>
        <translation>d_k</translation>
    </message>
    <message>
        <location line="+12" />
        <source>d_k on a log scale from 1 to 1024: each step multiplies it by about 1.07</source>
        <translation>d_k 取对数刻度，从 1 到 1024：每一格约乘以 1.07</translation>
    </message>
    <message>
        <location line="+50" />
        <source>&amp;Trials</source>
        <translation>试验次数(&amp;T)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>How many pairs q, k are drawn</source>
        <translation>抽取多少对 q、k</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Seed</source>
        <translation>种子(&amp;S)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The same seed gives the same draws, on every computer</source>
        <translation>同一个种子在任何电脑上都抽出同样的数</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Keys n</source>
        <translation>键数 n(&amp;K)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Keys in the softmax row: the scores q·k_1 … q·k_n</source>
        <translation>softmax 这一行里的键：打分 q·k_1 … q·k_n</translation>
    </message>
    <message>
        <location line="+113" />
        <source>d_k = %1</source>
        <translation>d_k = %1</translation>
    </message>
    <message>
        <location line="+13" />
        <location line="+15" />
        <source>Not computed: %1.</source>
        <translation>未计算：%1。</translation>
    </message>
    <message>
        <location line="-9" />
        <source>Computing d_k = %1 (%L2 trials)…</source>
        <translation>正在计算 d_k = %1（%L2 次试验）…</translation>
    </message>
    <message>
        <location line="+127" />
        <source>d_k = %1: a first look at %L2 trials; computing all %L3…</source>
        <translation>d_k = %1：先看 %L2 次试验的结果；正在计算全部 %L3 次…</translation>
    </message>
    <message>
        <location line="+5" />
        <source>d_k = %1: q, k ~ N(0, I), %L2 trials, seed %3, n = %4 keys (%5 s)</source>
        <translation>d_k = %1：q, k ~ N(0, I)，%L2 次试验，种子 %3，n = %4 个键（%5 秒）</translation>
    </message>
    <message>
        <location line="-308" />
        <source>Play: d_k walks from 1 to 1024 and back while the plots follow</source>
        <translation>播放：d_k 从 1 走到 1024 再回来，图表随之变化</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Step ▸</source>
        <translation>单步 ▸</translation>
    </message>
    <message>
        <location line="+1" />
        <source>d_k one notch on, paused</source>
        <translation>d_k 前进一格并暂停</translation>
    </message>
    <message>
        <location line="+7" />
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <location line="+0" />
        <source>▶ Play d_k</source>
        <translation>▶ 播放 d_k</translation>
    </message>
</context>
<context>
    <name>attn::ScalingLabView</name>
    <message>
        <location filename="../../widgets/scalinglab.cpp" line="+175" />
        <location line="+620" />
        <source>raw q·k</source>
        <translation>原始 q·k</translation>
    </message>
    <message>
        <location line="-619" />
        <source>q·k / √d_k</source>
        <translation>q·k / √d_k</translation>
    </message>
    <message>
        <location line="+1" />
        <source>q·k / d_k</source>
        <translation>q·k / d_k</translation>
    </message>
    <message>
        <location line="+16" />
        <source>Same score axis for the three histograms</source>
        <translation>三个直方图共用一条分数轴</translation>
    </message>
    <message>
        <location line="+3" />
        <source>On: the three histograms share the raw score's range, so you see how much wider the raw scores spread. Off: each on its own range, so you see their shapes.</source>
        <translation>勾选：三个直方图共用原始打分的范围，可以看出原始打分散得有多宽。不勾选：各用自己的范围，可以看清各自的形状。</translation>
    </message>
    <message>
        <location line="+13" />
        <source>trials</source>
        <translation>次数</translation>
    </message>
    <message>
        <location line="+14" />
        <source>&lt;b&gt;What the scaling does to the softmax&lt;/b&gt; (means over the trials)</source>
        <translation>&lt;b&gt;缩放对 softmax 的影响&lt;/b&gt;（各次试验的平均值）</translation>
    </message>
    <message>
        <location line="+212" />
        <location line="+155" />
        <source>d_k = %1</source>
        <translation>d_k = %1</translation>
    </message>
    <message>
        <location line="-153" />
        <source>1/d_k = %1</source>
        <translation>1/d_k = %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1: variance %2, theory %3</source>
        <translation>%1：方差 %2，理论值 %3</translation>
    </message>
    <message>
        <location line="+27" />
        <source>[s, 0, 0] saturated: s &gt; %1</source>
        <translation>[s, 0, 0] 饱和：s &gt; %1</translation>
    </message>
    <message>
        <location line="+13" />
        <source>÷ d_k instead of ÷ √d_k: the classic mistake</source>
        <translation>除以 d_k 而不是 √d_k：经典错误</translation>
    </message>
    <message>
        <location line="+4" />
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location line="+15" />
        <location line="+52" />
        <source>theory</source>
        <translation>理论</translation>
    </message>
    <message>
        <location line="-38" />
        <source>score (bars: %L1 trials; dashed: theory)</source>
        <translation>打分（柱：%L1 次试验；虚线：理论）</translation>
    </message>
    <message>
        <location line="+11" />
        <source>Variance against d_k</source>
        <translation>方差随 d_k 的变化</translation>
    </message>
    <message>
        <location line="+14" />
        <location line="+96" />
        <source>d_k (log scale)</source>
        <translation>d_k（对数刻度）</translation>
    </message>
    <message>
        <location line="-90" />
        <source>variance (log scale)</source>
        <translation>方差（对数刻度）</translation>
    </message>
    <message>
        <location line="+32" />
        <source>theory: d_k, 1, 1/d_k</source>
        <translation>理论：d_k、1、1/d_k</translation>
    </message>
    <message>
        <location line="+33" />
        <source>Variance against d_k (measuring at d_k = 1, 2, 4, …, 1024…)</source>
        <translation>方差随 d_k 的变化（正在测量 d_k = 1, 2, 4, …, 1024…）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Variance against d_k (%L1 trials at each point)</source>
        <translation>方差随 d_k 的变化（每个点 %L1 次试验）</translation>
    </message>
    <message>
        <location line="+25" />
        <source>gradient norm (log scale)</source>
        <translation>梯度范数（对数刻度）</translation>
    </message>
    <message>
        <location line="+23" />
        <source>‖∂w/∂x‖ (mean)</source>
        <translation>‖∂w/∂x‖（均值）</translation>
    </message>
    <message>
        <location line="+3" />
        <source>‖∂w₁/∂q‖ (median)</source>
        <translation>‖∂w₁/∂q‖（中位数）</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Gradient against d_k (measuring…)</source>
        <translation>梯度随 d_k 的变化（正在测量…）</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Gradient against d_k</source>
        <translation>梯度随 d_k 的变化</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Gradient against d_k (%L1 trials, rows of %2 keys; below 10⁻⁴ drawn on the axis)</source>
        <translation>梯度随 d_k 的变化（%L1 次试验，每行 %2 把键；低于 10⁻⁴ 的画在坐标轴上）</translation>
    </message>
    <message>
        <location line="+13" />
        <source>softmax([s, 0, 0])</source>
        <translation>softmax([s, 0, 0])</translation>
    </message>
    <message>
        <location line="+0" />
        <source>a row of %1 random keys</source>
        <translation>一行 %1 个随机键</translation>
    </message>
    <message>
        <location line="+1" />
        <source>max
weight</source>
        <translation>最大
权重</translation>
    </message>
    <message>
        <location line="+0" />
        <source>entropy
(nats)</source>
        <translation>熵
（奈特）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>saturated
(&gt; %1)</source>
        <translation>饱和
（&gt; %1）</translation>
    </message>
    <message>
        <location line="+53" />
        <source>Entropy in nats: 0 is one-hot; uniform is ln 3 = %1 for [s, 0, 0], ln %2 = %3 for %2 keys. Saturated: max weight above %4, nearly one-hot, gradient nearly 0.</source>
        <translation>熵以奈特为单位：0 表示 one-hot；均匀分布时 [s, 0, 0] 为 ln 3 = %1，%2 个键为 ln %2 = %3。饱和：最大权重超过 %4，几乎是 one-hot，梯度几乎为 0。</translation>
    </message>
    <message>
        <location line="+14" />
        <source>One row: softmax over %1 keys, q·k_j for j = 1…%1 (trial 1)</source>
        <translation>一行：%1 个键上的 softmax，q·k_j，j = 1…%1（第 1 次试验）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>One row of keys</source>
        <translation>一行键</translation>
    </message>
    <message>
        <location line="+29" />
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+9" />
        <source>&lt;b&gt;The handout's draw&lt;/b&gt;: not computed.</source>
        <translation>&lt;b&gt;讲义里的那次抽样&lt;/b&gt;：未计算。</translation>
    </message>
    <message>
        <location line="+6" />
        <source>q·k / √%1</source>
        <translation>q·k / √%1</translation>
    </message>
    <message>
        <location line="+5" />
        <source>&lt;b&gt;The handout's draw.&lt;/b&gt; Seed 000's own code: &lt;code&gt;random.seed(%1)&lt;/code&gt;, then q and k each %2 × &lt;code&gt;random.gauss(0, 1)&lt;/code&gt; (Python's Mersenne Twister and gauss, reproduced here), and softmax([score, 0, 0]).</source>
        <translation>&lt;b&gt;讲义里的那次抽样。&lt;/b&gt;种子 000 自己的代码：&lt;code&gt;random.seed(%1)&lt;/code&gt;，然后 q 和 k 各取 %2 次 &lt;code&gt;random.gauss(0, 1)&lt;/code&gt;（这里逐位复现了 Python 的梅森旋转算法和 gauss），再算 softmax([打分, 0, 0])。</translation>
    </message>
    <message>
        <location line="+6" />
        <source>what the code prints</source>
        <translation>代码实际输出</translation>
    </message>
    <message>
        <location line="+2" />
        <source>what the handout printed</source>
        <translation>讲义印出的数</translation>
    </message>
    <message>
        <location line="+3" />
        <source>score</source>
        <translation>打分</translation>
    </message>
    <message>
        <location line="+0" />
        <source>max weight</source>
        <translation>最大权重</translation>
    </message>
    <message>
        <location line="+0" />
        <source>entropy</source>
        <translation>熵</translation>
    </message>
    <message>
        <location line="+16" />
        <source>&lt;p style='margin-top:4px'&gt;The handout's printed scores are not what its code gives: Python 3.11 prints raw = %1 and scaled = %2 for this seed. Even taking its 3.79 as given, softmax([3.79, 0, 0]) has max weight %3 and entropy %4, not the printed %5 and %6. Any one draw is only one draw: the histograms above show thousands (docs/lessons.md, “Where the seeds are wrong”).&lt;/p&gt;</source>
        <translation>&lt;p style='margin-top:4px'&gt;讲义印出的打分并不是它的代码算出来的：对这个种子，Python 3.11 输出原始打分 = %1，缩放后 = %2。即使照讲义取 3.79，softmax([3.79, 0, 0]) 的最大权重也是 %3、熵是 %4，而不是印出的 %5 和 %6。一次抽样只是一次抽样：上面的直方图展示的是成千上万次（见 docs/lessons.md “种子材料中的错误”）。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>attn::SentencePanel</name>
    <message>
        <location filename="../../app/views/sentencepanel.cpp" line="+22" />
        <source>Type a sentence: 我 打 你, the cat sat</source>
        <translation>输入一句话：我 打 你，the cat sat</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Fill from sentence</source>
        <translation>由句子生成(&amp;F)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>One token per word, each with its own seeded vector: the same word always gets the same vector, so 我打你 and 你打我 share their embeddings</source>
        <translation>每个词一个 token，各有由种子生成的向量：同一个词总得到同一个向量，所以“我打你”和“你打我”共享嵌入</translation>
    </message>
    <message>
        <location line="+3" />
        <source>words or characters</source>
        <translation>按词或按字</translation>
    </message>
    <message>
        <location line="+1" />
        <source>split on spaces</source>
        <translation>按空格切分</translation>
    </message>
    <message>
        <location line="+1" />
        <source>one per character</source>
        <translation>每字一个</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Automatic: on spaces when there are any, else one token per character (Chinese)</source>
        <translation>自动：有空格就按空格切分，否则每个字一个 token（中文）</translation>
    </message>
    <message>
        <location line="+4" />
        <source>seed </source>
        <translation>种子 </translation>
    </message>
    <message>
        <location line="+1" />
        <source>Randomi&amp;se matrix</source>
        <translation>随机填充矩阵(&amp;S)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Fill the matrix shown above with numbers drawn from the seed</source>
        <translation>用种子生成的随机数填充上方显示的矩阵</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <location line="+26" />
        <source>Type a sentence first</source>
        <translation>请先输入一句话</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Sentence “%1”</source>
        <extracomment>An undo step: the tokens made from a typed sentence.</extracomment>
        <translation>句子“%1”</translation>
    </message>
    <message>
        <location line="+12" />
        <source>Randomise %1</source>
        <extracomment>An undo step: a matrix filled with random numbers; %1 names it.</extracomment>
        <translation>随机填充 %1</translation>
    </message>
</context>
<context>
    <name>attn::SessionPanel</name>
    <message>
        <location filename="../../app/views/sessionpanel.cpp" line="+256" />
        <source>The whole class answers from their phones: start a session, and students open the address (or scan the code) on the classroom's network. Nothing is kept but the anonymous counts, and only if you save them.</source>
        <translation>全班用手机作答：开始互动后，学生在教室网络中打开地址（或扫码）。除匿名计数外不保留任何内容，且只有在你保存时才保留。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>&amp;Port:</source>
        <translation>端口(&amp;P)：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>If this port is taken, the next free one is used</source>
        <translation>若此端口已被占用，则使用下一个空闲端口</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Start the session</source>
        <translation>开始互动(&amp;S)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Join code</source>
        <translation>加入码</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Students open:</source>
        <translation>学生打开：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Phones in:</source>
        <translation>手机语言：</translation>
    </message>
    <message>
        <location line="+5" />
        <source>each phone's language</source>
        <translation>跟随各手机的语言</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Ask:</source>
        <translation>提问：</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Which key wins for the selected query?</source>
        <translation>所选查询的哪个键权重最大？</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Which row's weights sum below 1?</source>
        <translation>哪一行的权重之和小于 1？</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The weight of a key, to two decimals</source>
        <translation>某个键的权重（两位小数）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>A question of the lesson's quiz</source>
        <translation>本课测验中的一道题</translation>
    </message>
    <message>
        <location line="+3" />
        <source>&amp;Ask the class</source>
        <translation>向全班提问(&amp;A)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Reveal</source>
        <translation>揭晓(&amp;R)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Next</source>
        <translation>下一题(&amp;N)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Save the tallies…</source>
        <translation>保存统计…</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;End the session</source>
        <translation>结束互动(&amp;E)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>No answers yet</source>
        <translation>尚无作答</translation>
    </message>
    <message>
        <location line="+110" />
        <source>key %1</source>
        <translation>键 %1</translation>
    </message>
    <message>
        <location line="+12" />
        <source>(this lesson has no quiz)</source>
        <translation>（本课没有测验）</translation>
    </message>
    <message>
        <location line="+117" />
        <source>Nothing asked yet: choose a question and Ask the class.</source>
        <translation>尚未提问：选择一道题，然后点“向全班提问”。</translation>
    </message>
    <message>
        <location line="+5" />
        <source>The lesson changed after the question was asked: its answer is the one from then. Ask again for the new numbers.</source>
        <translation>提问后课程已改动：答案仍是提问时的数值。重新提问即可使用新数值。</translation>
    </message>
    <message>
        <location line="+20" />
        <source>Students connected: %1</source>
        <translation>已连接学生：%1</translation>
    </message>
    <message>
        <location line="-10" />
        <source>Answers: %1 of %2 students</source>
        <translation>作答：%1 / %2 名学生</translation>
    </message>
    <message>
        <location line="+2" />
        <source>right: %1</source>
        <translation>答对：%1</translation>
    </message>
</context>
<context>
    <name>attn::SettingEdits</name>
    <message>
        <location filename="../../app/document/settingedits.cpp" line="+36" />
        <source>Softmax₁ (+1)</source>
        <extracomment>An undo step: the row normaliser, softmax₁ = e^x / (1 + Σ e^x) or the ordinary softmax.</extracomment>
        <translation>Softmax₁（+1）</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Ordinary softmax</source>
        <translation>普通 softmax</translation>
    </message>
    <message>
        <location line="-12" />
        <source>Causal mask on</source>
        <translation>开启因果掩码</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Causal mask off</source>
        <translation>关闭因果掩码</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Mask before softmax</source>
        <translation>softmax 之前加掩码</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Mask after softmax</source>
        <translation>softmax 之后加掩码</translation>
    </message>
    <message>
        <location line="+14" />
        <source>1 head</source>
        <translation>1 个头</translation>
    </message>
    <message>
        <location line="+0" />
        <source>%1 heads</source>
        <translation>%1 个头</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Positional encoding: %1</source>
        <translation>位置编码：%1</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Scaling: %1</source>
        <translation>缩放：%1</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Similarity: %1</source>
        <translation>相似度：%1</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Temperature %1</source>
        <translation>温度 %1</translation>
    </message>
    <message>
        <location line="+8" />
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="+2" />
        <source>sinusoidal</source>
        <translation>正弦</translation>
    </message>
    <message>
        <location line="+2" />
        <source>learned</source>
        <translation>可学习</translation>
    </message>
    <message>
        <location line="+2" />
        <source>RoPE</source>
        <translation>RoPE</translation>
    </message>
    <message>
        <location line="+9" />
        <source>÷ √d_k</source>
        <translation>÷ √d_k</translation>
    </message>
    <message>
        <location line="+2" />
        <source>÷ 1</source>
        <translation>÷ 1（不缩放）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>÷ d_k</source>
        <translation>÷ d_k</translation>
    </message>
    <message>
        <location line="+9" />
        <source>dot product</source>
        <translation>点积</translation>
    </message>
    <message>
        <location line="+2" />
        <source>cosine</source>
        <translation>余弦</translation>
    </message>
    <message>
        <location line="+2" />
        <source>negative squared distance</source>
        <translation>负平方距离</translation>
    </message>
</context>
<context>
    <name>attn::SettingsActions</name>
    <message>
        <location filename="../../app/views/settingsactions.cpp" line="+84" />
        <source>Softmax&amp;₁: +1 in the denominator (attend to nothing)</source>
        <translation>Softmax&amp;₁：分母加 1（可以不关注任何键）</translation>
    </message>
    <message>
        <location line="+3" />
        <source>w = e^x / (1 + Σ e^x): a sink of score 0 and value 0 beside the keys, so a row may sum below 1 and give the rest to nothing</source>
        <translation>w = e^x / (1 + Σ e^x)：在键旁边加一个得分为 0、值为 0 的汇点，所以一行之和可以小于 1，剩下的不给任何键</translation>
    </message>
    <message>
        <location line="-26" />
        <source>&amp;Causal mask</source>
        <translation>因果掩码(&amp;C)</translation>
    </message>
    <message>
        <location line="+7" />
        <source>Mask &amp;after softmax (the mistake)</source>
        <translation>softmax 之后再加掩码（错误做法）(&amp;A)</translation>
    </message>
    <message>
        <location line="+7" />
        <source>C&amp;lear clicked cells</source>
        <translation>清除点选的单元格(&amp;L)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Open every cell blocked by hand</source>
        <translation>取消所有手动屏蔽的单元格</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Clear the hand-made mask</source>
        <translation>清除手动掩码</translation>
    </message>
    <message>
        <location line="+38" />
        <source>&amp;1 head</source>
        <translation>1 个头(&amp;1)</translation>
    </message>
    <message>
        <location line="+0" />
        <source>&amp;%1 heads</source>
        <translation>%1 个头(&amp;%1)</translation>
    </message>
    <message>
        <location line="+6" />
        <source>&amp;Next head</source>
        <translation>下一个头(&amp;N)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Previous head</source>
        <translation>上一个头(&amp;P)</translation>
    </message>
    <message>
        <location line="+10" />
        <source>&amp;None</source>
        <translation>无(&amp;N)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Sinusoidal</source>
        <translation>正弦(&amp;S)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Learned</source>
        <translation>可学习(&amp;L)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;RoPE</source>
        <translation>&amp;RoPE</translation>
    </message>
    <message>
        <location line="+10" />
        <source>÷ √d_&amp;k</source>
        <translation>÷ √d_&amp;k</translation>
    </message>
    <message>
        <location line="+1" />
        <source>÷ 1 (&amp;none)</source>
        <translation>÷ 1 不缩放(&amp;N)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>÷ &amp;d_k (the mistake)</source>
        <translation>÷ &amp;d_k（错误做法）</translation>
    </message>
    <message>
        <location line="+7" />
        <source>&amp;Dot product q·k</source>
        <translation>点积 q·k(&amp;D)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Cosine</source>
        <translation>余弦相似度(&amp;C)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Negative squared distance</source>
        <translation>负平方距离(&amp;N)</translation>
    </message>
    <message>
        <location line="+6" />
        <source>&amp;Sharper (τ × 0.8)</source>
        <translation>更尖锐（τ × 0.8）(&amp;S)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Flatter (τ × 1.25)</source>
        <translation>更平缓（τ × 1.25）(&amp;F)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Reset to τ = 1</source>
        <translation>重置为 τ = 1(&amp;R)</translation>
    </message>
    <message>
        <location line="+75" />
        <source>The temperature is at the end of its range (%1 to %2)</source>
        <translation>温度已到取值范围的边界（%1 到 %2）</translation>
    </message>
    <message>
        <location line="+14" />
        <source>Block every key after the query's own position (Ctrl+Shift+M)</source>
        <translation>屏蔽查询自身位置之后的所有键（Ctrl+Shift+M）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>A causal mask needs as many queries as keys</source>
        <translation>因果掩码要求查询与键数量相同</translation>
    </message>
    <message>
        <location line="+35" />
        <source>%1 head(s): d_k = %2, d_v = %3</source>
        <translation>%1 个头：d_k = %2，d_v = %3</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1 heads do not divide the widths h·d_k = %2 and h·d_v = %3</source>
        <translation>%1 个头无法整除宽度 h·d_k = %2 和 h·d_v = %3</translation>
    </message>
    <message>
        <location line="+13" />
        <source>Rotate each head's queries and keys by position</source>
        <translation>按位置旋转每个头的查询和键</translation>
    </message>
    <message>
        <location line="+1" />
        <source>RoPE rotates pairs of dimensions and needs an even d_k (now %1)</source>
        <translation>RoPE 成对旋转维度，需要 d_k 为偶数（当前为 %1）</translation>
    </message>
    <message>
        <location line="-122" />
        <source>Full (every pair)</source>
        <translation>完整（所有配对）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Sliding window</source>
        <translation>滑动窗口</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Dilated window (every 2nd)</source>
        <translation>空洞窗口（每隔一个）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Block-local</source>
        <translation>分块局部</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Global first token + window</source>
        <translation>首词元全局 + 窗口</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Custom (from the file)</source>
        <translation>自定义（来自文件）</translation>
    </message>
    <message>
        <location line="+12" />
        <source>Mask: full</source>
        <extracomment>An undo step: the sparse mask's preset and its width w.</extracomment>
        <translation>掩码：完整</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Mask: %1, w = %2</source>
        <translation>掩码：%1，w = %2</translation>
    </message>
    <message>
        <location line="+64" />
        <source>A sparse mask counts positions in one sequence: it needs as many queries as keys</source>
        <translation>稀疏掩码按同一序列中的位置计算：查询数必须等于键数</translation>
    </message>
    <message>
        <location line="-167" />
        <source>&amp;Wider window (w + 1)</source>
        <translation>加宽窗口 (w + 1)(&amp;W)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Narrower window (w − 1)</source>
        <translation>收窄窗口 (w − 1)(&amp;N)</translation>
    </message>
    <message>
        <location line="+119" />
        <source>Mask width w = %1</source>
        <extracomment>An undo step: the width of a file's own sparse mask.</extracomment>
        <translation>掩码宽度 w = %1</translation>
    </message>
    <message>
        <location line="+42" />
        <source>A file's own combination of window, dilation, blocks and global tokens</source>
        <translation>文件自带的窗口、扩张、分块与全局词元组合</translation>
    </message>
    <message>
        <location line="+10" />
        <source>Choose a sliding window or blocks first: a full mask has no width</source>
        <translation>请先选择滑动窗口或分块：完整掩码没有宽度</translation>
    </message>
    <message>
        <location line="+4" />
        <source>w = %1 → %2 (Ctrl+Shift+Right)</source>
        <translation>w = %1 → %2（Ctrl+Shift+右方向键）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>w = %1 already reaches every key the pattern can</source>
        <translation>w = %1 已覆盖该模式能到达的所有键</translation>
    </message>
    <message>
        <location line="+1" />
        <source>w = %1 → %2 (Ctrl+Shift+Left)</source>
        <translation>w = %1 → %2（Ctrl+Shift+左方向键）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>w = 1 is the narrowest</source>
        <translation>w = 1 已是最窄</translation>
    </message>
</context>
<context>
    <name>attn::SettingsBar</name>
    <message>
        <location filename="../../app/views/settingsbar.cpp" line="+161" />
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location line="+1" />
        <source> &amp;τ </source>
        <translation> &amp;τ </translation>
    </message>
    <message>
        <location line="+4" />
        <source>How many heads (h): the width splits into h parts of d_k</source>
        <translation>头数 h：宽度平分成 h 份，每份 d_k</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Positional encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <location line="+1" />
        <source>What the scores are divided by before the softmax</source>
        <translation>softmax 之前打分除以什么</translation>
    </message>
    <message>
        <location line="+1" />
        <source>How a query and a key are compared</source>
        <translation>查询与键怎样比较</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Temperature τ: the scores are divided by τ; small τ sharpens, large τ flattens</source>
        <translation>温度 τ：打分除以 τ；τ 小则更尖锐，τ 大则更平缓</translation>
    </message>
    <message>
        <location line="+16" />
        <source>Heads: %1</source>
        <translation>头数：%1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Position: %1</source>
        <translation>位置：%1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Scale: %1</source>
        <translation>缩放：%1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Similarity: %1</source>
        <translation>相似度：%1</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Causal</source>
        <translation>因果</translation>
    </message>
    <message>
        <location line="+1" />
        <source>After softmax ✗</source>
        <translation>softmax 之后 ✗</translation>
    </message>
    <message>
        <location line="+3" />
        <source>h = %1</source>
        <translation>h = %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>PE: %1</source>
        <translation>位置编码：%1</translation>
    </message>
    <message>
        <location line="-37" />
        <source> &amp;w </source>
        <translation> &amp;w </translation>
    </message>
    <message>
        <location line="+1" />
        <source>Sparse mask: which keys each query may see besides the causal mask and the padding</source>
        <translation>稀疏掩码：除因果掩码和填充外，每个查询还能看到哪些键</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Width w: the sliding window's W (key j open for query i when |i − j| &lt; W) or the block's size B</source>
        <translation>宽度 w：滑动窗口的 W（当 |i − j| &lt; W 时查询 i 能看到键 j），或分块的大小 B</translation>
    </message>
    <message>
        <location line="+20" />
        <source>Mask: %1</source>
        <translation>掩码：%1</translation>
    </message>
    <message>
        <location line="+12" />
        <source>Full</source>
        <translation>完整</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Dilated</source>
        <translation>空洞</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Block</source>
        <translation>分块</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Global+window</source>
        <translation>全局+窗口</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Window</source>
        <translation>窗口</translation>
    </message>
</context>
<context>
    <name>attn::SinkView</name>
    <message>
        <location filename="../../app/views/sinkview.cpp" line="+148" />
        <source>Layer %1, head %2, position %3 (“%4”)</source>
        <translation>第 %1 层，头 %2，位置 %3（“%4”）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>weight on the first token: %1; evenly spread over the %2 tokens it reads: %3</source>
        <translation>放在第一个词元上的权重：%1；若均匀分给它读取的 %2 个词元：%3</translation>
    </message>
    <message>
        <location line="+194" />
        <source>Computing…</source>
        <translation>计算中…</translation>
    </message>
    <message>
        <location line="+25" />
        <source>The experiment needs a text of at least 3 tokens (this one has %1).</source>
        <translation>这个实验需要至少 3 个词元的文本（当前只有 %1 个）。</translation>
    </message>
    <message>
        <location line="+65" />
        <source>%1 tokens · %2 ms</source>
        <translation>%1 个词元 · %2 毫秒</translation>
    </message>
    <message>
        <location line="+17" />
        <source>Text:</source>
        <translation>文本：</translation>
    </message>
    <message>
        <location line="+14" />
        <source>The model's text (%1 tokens, seed %2):</source>
        <translation>模型自己写的文本（%1 个词元，种子 %2）：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The sentence (%1 tokens):</source>
        <translation>句子（%1 个词元）：</translation>
    </message>
    <message>
        <location line="+17" />
        <source>L%1H%2</source>
        <translation>L%1H%2</translation>
    </message>
    <message>
        <location line="+5" />
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <location line="+1" />
        <source>position i (the query), 1 to %1</source>
        <translation>位置 i（查询），1 到 %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Weight on the first token</source>
        <translation>第一个词元上的权重</translation>
    </message>
    <message>
        <location line="+0" />
        <source>every head at every position of the text (full causal attention)</source>
        <translation>每个头在文本每个位置上的值（完整因果注意力）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+2" />
        <source>mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <location line="+1" />
        <source>mean = over positions 2 to %1; evenly spread causal rows would give %2</source>
        <translation>平均 = 对位置 2 到 %1 取平均；均匀分布的因果行会给出 %2</translation>
    </message>
    <message>
        <location line="+20" />
        <source>full</source>
        <translation>完整</translation>
    </message>
    <message>
        <location line="+0" />
        <source>window %1</source>
        <translation>窗口 %1</translation>
    </message>
    <message>
        <location line="+0" />
        <source>%1 sinks + window %2</source>
        <translation>%1 个汇聚词元 + 窗口 %2</translation>
    </message>
    <message>
        <location line="+17" />
        <source>&lt;b&gt;Our model:&lt;/b&gt; the window alone costs %1 % more loss; the %2 sinks bring back %3 % of it.</source>
        <translation>&lt;b&gt;我们的模型：&lt;/b&gt;只用窗口时损失增加 %1 %；%2 个汇聚词元挽回其中的 %3 %。</translation>
    </message>
    <message>
        <location line="+5" />
        <source>&lt;b&gt;Our model:&lt;/b&gt; the window alone changes the loss by %1 %: it costs nothing here; with %2 sinks: %3 %.</source>
        <translation>&lt;b&gt;我们的模型：&lt;/b&gt;只用窗口时损失变化 %1 %：在这里没有代价；加上 %2 个汇聚词元：%3 %。</translation>
    </message>
    <message>
        <location line="+16" />
        <source>The head that leans most on the first token, L%1H%2, puts %3 there on average, %4 times what evenly spread rows would (%5).</source>
        <translation>最依赖第一个词元的头 L%1H%2 平均在那里放了 %3，是均匀分布时（%5）的 %4 倍。</translation>
    </message>
    <message>
        <location line="+11" />
        <source>&amp;Text:</source>
        <translation>文本(&amp;T)：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>the model's own</source>
        <translation>模型自己写的</translation>
    </message>
    <message>
        <location line="+1" />
        <source>the sentence above</source>
        <translation>上面的句子</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The model's own text: it writes from “the cat” at temperature 1, as long as its context. The sentence above: what the model mode reads.</source>
        <translation>模型自己写的文本：从 “the cat” 开始，温度 1，写满它的上下文长度。上面的句子：模型模式正在读的句子。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;New text</source>
        <translation>换一段文本(&amp;N)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The model writes another text (the next seed)</source>
        <translation>模型再写一段文本（下一个种子）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Window</source>
        <translation>窗口(&amp;W)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Each query reads only its last w tokens (itself included)</source>
        <translation>每个查询只读取最近的 w 个词元（包括自己）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>S&amp;inks</source>
        <translation>汇聚词元(&amp;I)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The first s tokens stay readable beside the window</source>
        <translation>开头的 s 个词元在窗口之外仍可读取</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&lt;b&gt;StreamingLLM's experiment&lt;/b&gt; on this text</source>
        <translation>在这段文本上做 &lt;b&gt;StreamingLLM 的实验&lt;/b&gt;</translation>
    </message>
    <message>
        <location line="+1" />
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <location line="+0" />
        <source>loss (nats/token)</source>
        <translation>损失（奈特/词元）</translation>
    </message>
    <message>
        <location line="+0" />
        <source>perplexity</source>
        <translation>困惑度</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The paper (Xiao et al. 2023, StreamingLLM): Llama-2-13B on 65K tokens has perplexity %1 with window attention alone, and %2 with 4 sinks + the window.</source>
        <translation>论文（Xiao et al. 2023，StreamingLLM）：Llama-2-13B 在 65K 词元上，只用窗口注意力时困惑度为 %1，4 个汇聚词元 + 窗口时为 %2。</translation>
    </message>
</context>
<context>
    <name>attn::StageText</name>
    <message>
        <location filename="../../widgets/stagedata.cpp" line="+61" />
        <source> · Σ %1</source>
        <translation> · Σ %1</translation>
    </message>
    <message>
        <location line="+14" />
        <source>max · H · Σ</source>
        <extracomment>The header above the weights' row notes under softmax_1: largest weight, entropy H, the row's sum.</extracomment>
        <translation>最大 · H · Σ</translation>
    </message>
    <message>
        <location line="+168" />
        <source>Softmax₁ weights  e^x / (1 + Σ e^x)</source>
        <translation>Softmax₁ 权重  e^x / (1 + Σ e^x)</translation>
    </message>
    <message>
        <location line="+14" />
        <source>max = the largest weight · H = the entropy in nats · Σ = the row's sum, below 1 with softmax₁: the rest 1 − Σ attends to nothing</source>
        <extracomment>Under the weights map with softmax_1: the rows sum below 1, the rest goes to no key.</extracomment>
        <translation>最大 = 该行最大的权重 · H = 熵（奈特） · Σ = 该行之和，softmax₁ 下小于 1：剩下的 1 − Σ 不关注任何键</translation>
    </message>
    <message>
        <location line="+195" />
        <source>weight = e^(%1 − %2) / (e^(0 − %2) + Σ) = %3 / %4 = %5</source>
        <translation>权重 = e^(%1 − %2) / (e^(0 − %2) + Σ) = %3 / %4 = %5</translation>
    </message>
    <message>
        <location line="-394" />
        <source>all blocked</source>
        <translation>全部屏蔽</translation>
    </message>
    <message>
        <location line="+5" />
        <source> · Σ %1 ✗</source>
        <translation> · Σ %1 ✗</translation>
    </message>
    <message>
        <location line="+34" />
        <source>Scores</source>
        <translation>分数</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Scaled scores</source>
        <translation>缩放后分数</translation>
    </message>
    <message>
        <location line="+2" />
        <source>After the mask</source>
        <translation>加掩码后</translation>
    </message>
    <message>
        <location line="+2" />
        <location line="+140" />
        <source>Softmax weights</source>
        <translation>softmax 权重</translation>
    </message>
    <message>
        <location line="-138" />
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location line="+34" />
        <source>head %1 of %2</source>
        <translation>头 %1/%2</translation>
    </message>
    <message>
        <location line="+2" />
        <source>causal</source>
        <translation>因果掩码</translation>
    </message>
    <message>
        <location line="+11" />
        <source>padding</source>
        <translation>填充掩码</translation>
    </message>
    <message>
        <location line="+2" />
        <source>custom mask</source>
        <translation>自定义掩码</translation>
    </message>
    <message>
        <location line="+7" />
        <source>cosine</source>
        <translation>余弦</translation>
    </message>
    <message>
        <location line="+3" />
        <source>−‖q−k‖²</source>
        <translation>−‖q−k‖²</translation>
    </message>
    <message>
        <location line="+7" />
        <source>unscaled</source>
        <translation>未缩放</translation>
    </message>
    <message>
        <location line="+3" />
        <source>÷ d_k ✗</source>
        <translation>÷ d_k ✗</translation>
    </message>
    <message>
        <location line="+9" />
        <source>sinusoidal PE</source>
        <translation>正弦编码</translation>
    </message>
    <message>
        <location line="+3" />
        <source>learned PE</source>
        <translation>可学习编码</translation>
    </message>
    <message>
        <location line="+3" />
        <source>RoPE</source>
        <translation>RoPE</translation>
    </message>
    <message>
        <location line="+14" />
        <location line="+298" />
        <location line="+15" />
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <location line="-312" />
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Scores  s = %1</source>
        <translation>分数  s = %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>score</source>
        <translation>分数</translation>
    </message>
    <message>
        <location line="+7" />
        <source>Scaled  s / %1</source>
        <translation>缩放  s / %1</translation>
    </message>
    <message>
        <location line="+1" />
        <location line="+8" />
        <source>scaled score</source>
        <translation>缩放后分数</translation>
    </message>
    <message>
        <location line="+54" />
        <source> · shared scale</source>
        <extracomment>Appended to a score map's colour bar title when scores, scaled and masked share one colour range.</extracomment>
        <translation> · 共用色标</translation>
    </message>
    <message>
        <location line="-33" />
        <source>max · H</source>
        <extracomment>The header above the weights' row notes: the row's largest weight and its entropy H.</extracomment>
        <translation>max · H</translation>
    </message>
    <message>
        <location line="+2" />
        <source>max = the largest weight in the row · H = the row's entropy in nats (0: all on one key)</source>
        <extracomment>Under the weights map: what the two numbers right of each row are. Entropy in nats (natural log).</extracomment>
        <translation>max = 该行最大的权重 · H = 该行的熵，单位奈特（nat，0 表示全部落在一个键上）</translation>
    </message>
    <message>
        <location line="+176" />
        <source>scaled = score / (c·τ) = %1 / %2 = %3 / %4 = %5</source>
        <translation>缩放后 = 分数 / (c·τ) = %1 / %2 = %3 / %4 = %5</translation>
    </message>
    <message>
        <location line="+75" />
        <source>Concatenated heads  [head₁ … headₕ]</source>
        <translation>拼接各头  [head₁ … headₕ]</translation>
    </message>
    <message>
        <location line="+38" />
        <source>Sinusoidal encoding
P(p, 2i) = sin, P(p, 2i+1) = cos</source>
        <translation>正弦位置编码
P(p, 2i) = sin, P(p, 2i+1) = cos</translation>
    </message>
    <message>
        <location line="-385" />
        <source>after softmax ✗</source>
        <translation>softmax 后掩码 ✗</translation>
    </message>
    <message>
        <location line="+72" />
        <source>Masked  blocked → −∞</source>
        <translation>掩码  屏蔽 → −∞</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Masked after the softmax ✗</source>
        <translation>softmax 之后才掩码 ✗</translation>
    </message>
    <message>
        <location line="+16" />
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+26" />
        <source>value dimensions</source>
        <translation>值的维度</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Output  weights · V</source>
        <translation>输出  权重 · V</translation>
    </message>
    <message>
        <location line="+1" />
        <location line="+232" />
        <location line="+16" />
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location line="-142" />
        <source>causal: key %1 comes after query %2</source>
        <translation>因果：键 %1 在查询 %2 之后</translation>
    </message>
    <message>
        <location line="+2" />
        <source>key %1 is padding</source>
        <translation>键 %1 是填充</translation>
    </message>
    <message>
        <location line="+8" />
        <source>blocked by a click</source>
        <translation>已单击屏蔽</translation>
    </message>
    <message>
        <location line="+33" />
        <source>score = %1 = %2%3</source>
        <translation>分数 = %1 = %2%3</translation>
    </message>
    <message>
        <location line="+14" />
        <source>blocked (%1): −∞, so its weight will be 0</source>
        <translation>已屏蔽（%1）：−∞，所以它的权重将为 0</translation>
    </message>
    <message>
        <location line="+2" />
        <source>blocked (%1), but the mask acts after the softmax: the score stays %2</source>
        <translation>已屏蔽（%1），但掩码在 softmax 之后才起作用：分数仍为 %2</translation>
    </message>
    <message>
        <location line="+2" />
        <source>open: %1</source>
        <translation>未屏蔽：%1</translation>
    </message>
    <message>
        <location line="+4" />
        <source>every key of this row is blocked: all its weights are 0</source>
        <translation>这一行的每把键都被屏蔽：权重全为 0</translation>
    </message>
    <message>
        <location line="+4" />
        <source>blocked (%1): e^(−∞) = 0</source>
        <translation>已屏蔽（%1）：e^(−∞) = 0</translation>
    </message>
    <message>
        <location line="+8" />
        <source>weight = e^(%1 − %2) / Σ = %3 / %4 = %5</source>
        <translation>权重 = e^(%1 − %2) / Σ = %3 / %4 = %5</translation>
    </message>
    <message>
        <location line="+3" />
        <source>then blocked after the softmax (%1): set to 0, and the row is not renormalised</source>
        <translation>随后在 softmax 之后被屏蔽（%1）：置为 0，且该行没有重新归一化</translation>
    </message>
    <message>
        <location line="+2" />
        <source>row: max %1 at “%2”, entropy %3 nats, sum %4</source>
        <translation>本行：最大 %1（“%2”），熵 %3 奈特，和 %4</translation>
    </message>
    <message>
        <location line="+6" />
        <source>output = Σ_j w_j·v_j = %1%2</source>
        <translation>输出 = Σ_j w_j·v_j = %1%2</translation>
    </message>
    <message>
        <location line="+11" />
        <source>exact value: %1</source>
        <translation>精确值：%1</translation>
    </message>
    <message>
        <location line="+11" />
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <location line="+14" />
        <source>heads' value dimensions</source>
        <translation>各头的值维度</translation>
    </message>
    <message>
        <location line="+15" />
        <source>output dimensions</source>
        <translation>输出维度</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Output  concat · W_O</source>
        <translation>输出  拼接 · W_O</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Output  = concat (no W_O)</source>
        <translation>输出  = 拼接（无 W_O）</translation>
    </message>
    <message>
        <location line="+10" />
        <source>positions (queries)</source>
        <translation>位置（查询）</translation>
    </message>
    <message>
        <location line="+5" />
        <source>RoPE angles  θ(p, i) = p·10000^(−2i/d_k)</source>
        <translation>RoPE 旋转角  θ(p, i) = p·10000^(−2i/d_k)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>pair %1</source>
        <translation>第 %1 对</translation>
    </message>
    <message>
        <location line="+1" />
        <source>dimension pairs (2i, 2i+1)</source>
        <translation>维度对 (2i, 2i+1)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>angle (radians)</source>
        <translation>角度（弧度）</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Learned encoding (drawn from seed %1)</source>
        <translation>可学习位置编码（由种子 %1 生成）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>embedding dimensions (added to X)</source>
        <translation>嵌入维度（加到 X 上）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>dimensions (added to Q, K and V)</source>
        <translation>维度（加到 Q、K、V 上）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>added value</source>
        <translation>叠加值</translation>
    </message>
    <message>
        <location line="-403" />
        <source>window %1, dilation %2</source>
        <translation>窗口 %1，空洞 %2</translation>
    </message>
    <message>
        <location line="+1" />
        <source>window %1</source>
        <translation>窗口 %1</translation>
    </message>
    <message>
        <location line="+2" />
        <source>stride %1</source>
        <translation>步长 %1</translation>
    </message>
    <message>
        <location line="+2" />
        <source>blocks of %1</source>
        <translation>每块 %1</translation>
    </message>
    <message numerus="yes">
        <location line="+2" />
        <source>%n global token(s)</source>
        <translation>
            <numerusform>%n 个全局词元</numerusform>
        </translation>
    </message>
    <message>
        <location line="+232" />
        <source>outside the sliding window: %1 positions apart</source>
        <translation>在滑动窗口之外：相距 %1 个位置</translation>
    </message>
    <message>
        <location line="+2" />
        <source>off the dilation's stride</source>
        <translation>不在空洞的步长上</translation>
    </message>
    <message>
        <location line="+2" />
        <source>another block</source>
        <translation>不在同一块</translation>
    </message>
</context>
<context>
    <name>attn::StageView</name>
    <message>
        <location filename="../../app/views/stageviews.cpp" line="-147" />
        <source>%1 is blocked by the causal mask; turn the causal mask off to open it</source>
        <translation>%1 被因果掩码屏蔽；关闭因果掩码才能打开它</translation>
    </message>
    <message>
        <location line="+1" />
        <source>%1 is blocked because the key is padding; untick it under Key padding to open it</source>
        <translation>%1 被屏蔽，因为这个键是填充；在“键填充掩码”中取消勾选才能打开它</translation>
    </message>
    <message>
        <location line="+7" />
        <source>Block %1</source>
        <translation>屏蔽 %1</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Unblock %1</source>
        <extracomment>An undo step: a map cell clicked open again (unmasked) or blocked (masked).</extracomment>
        <translation>取消屏蔽 %1</translation>
    </message>
    <message>
        <location line="-144" />
        <source>Click: select query %1</source>
        <extracomment>The last line of a map cell's tooltip: what a click and a Ctrl+click do.</extracomment>
        <translation>单击：选择查询 %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Click: select query %1 · Ctrl+click: block or open this cell</source>
        <translation>单击：选择查询 %1 · Ctrl+单击：屏蔽或打开此单元格</translation>
    </message>
    <message>
        <location line="+154" />
        <source>Query %1 selected</source>
        <translation>已选择查询 %1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Query %1 selected (Ctrl+click a cell to block or open it)</source>
        <translation>已选择查询 %1（Ctrl+单击单元格可屏蔽或打开它）</translation>
    </message>
    <message>
        <location line="-218" />
        <source>Exponentials  e^(s′ − max)</source>
        <extracomment>The weights' map at step 4 of step mode: each cell e to the power of (scaled score minus the row's maximum).</extracomment>
        <translation>指数  e^(s′ − max)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>e^(s′ − max)</source>
        <translation>e^(s′ − max)</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Σ′</source>
        <extracomment>The header above the row notes at the step of the exponentials: each row's sum.</extracomment>
        <translation>Σ′</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Σ′ = the row's sum of exponentials; the next step divides each by it</source>
        <translation>Σ′ = 该行指数之和；下一步用它去除每个指数</translation>
    </message>
    <message>
        <location line="+191" />
        <source>%1 is outside the sparse mask; choose Mask: full in the settings bar to open it</source>
        <translation>%1 在稀疏掩码之外；在设置栏选择“掩码：完整”即可打开</translation>
    </message>
</context>
<context>
    <name>attn::StepPanel</name>
    <message>
        <location filename="../../app/views/steppanel.cpp" line="+211" />
        <source>softmax₁: each exponential divided by 1 + their sum (the sink's e^0 = 1): the weights are positive and add up to less than 1; the rest attends to nothing.</source>
        <translation>softmax₁：每个指数除以 1 加它们的和（汇点的 e^0 = 1）：权重为正，和小于 1；剩下的部分不关注任何键。</translation>
    </message>
    <message>
        <location line="-64" />
        <source>First step (Home)</source>
        <translation>第一步（Home）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Previous step (Left, Page Up)</source>
        <translation>上一步（左方向键、Page Up）</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Next step (Right, Page Down)</source>
        <translation>下一步（右方向键、Page Down）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Last step (End)</source>
        <translation>最后一步（End）</translation>
    </message>
    <message>
        <location line="+25" />
        <source>Scores: compare the query with every key</source>
        <translation>打分：查询与每把键比较</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Scale: divide by √d_k (and τ)</source>
        <translation>缩放：除以 √d_k（和 τ）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Mask: add 0 or −∞</source>
        <translation>掩码：加上 0 或 −∞</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Softmax, part 1: exponentials</source>
        <translation>Softmax 第一步：取指数</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Softmax, part 2: divide by the sum</source>
        <translation>Softmax 第二步：除以总和</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Weighted sum of the values</source>
        <translation>对值向量加权求和</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Concatenate the heads (and W_O)</source>
        <translation>拼接各头（再乘 W_O）</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Each score is the dot product of the query with one key: multiply matching entries and add.</source>
        <translation>每个分数是查询与一把键的点积：对应分量相乘再相加。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Each score is the cosine of the angle between the query and one key.</source>
        <translation>每个分数是查询与一把键夹角的余弦。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Each score is minus the squared distance between the query and one key.</source>
        <translation>每个分数是查询与一把键距离平方的相反数。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Every score is divided by the same number, so that large d_k does not push the softmax into saturation.</source>
        <translation>每个分数都除以同一个数，使 d_k 很大时 softmax 也不会进入饱和区。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>A blocked key gets −∞, so that e^−∞ = 0 removes it from the softmax; an open key gets 0.</source>
        <translation>被屏蔽的键加上 −∞，e^−∞ = 0 把它从 softmax 中去掉；未屏蔽的键加 0。</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Here the mask acts after the softmax (the misconception): the row is normalised with every key, then the blocked weights are set to 0.</source>
        <translation>这里掩码作用在 softmax 之后（常见误区）：先用全部键归一化，再把被屏蔽的权重置 0。</translation>
    </message>
    <message>
        <location line="+3" />
        <source>e to the power of each score. Subtracting the row's maximum first gives the same weights and never overflows: both are written out.</source>
        <translation>对每个分数取 e 的幂。先减去该行最大值，权重不变且不会溢出：两种算法都写出来了。</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Each exponential divided by their sum: the weights are positive and add up to 1.</source>
        <translation>每个指数除以它们的和：权重都为正，且加起来等于 1。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>The output is the average of the value vectors, weighted by the weights.</source>
        <translation>输出是值向量按权重的加权平均。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>The heads' outputs side by side, then multiplied by W_O when there is one.</source>
        <translation>各头的输出并排拼接，有 W_O 时再乘以 W_O。</translation>
    </message>
    <message>
        <location line="+37" />
        <source>&lt;b&gt;Step %1 of %2:&lt;/b&gt; %3 &amp;nbsp; &lt;span style='color:#666'&gt;(query %4)&lt;/span&gt;</source>
        <extracomment>%1 and %2 count the steps, %3 names the step, %4 the selected query.</extracomment>
        <translation>&lt;b&gt;第 %1 步，共 %2 步：&lt;/b&gt;%3 &amp;nbsp; &lt;span style='color:#666'&gt;（查询 %4）&lt;/span&gt;</translation>
    </message>
    <message>
        <location line="+15" />
        <source>Hidden: predict it, then reveal.</source>
        <translation>已隐藏：先预测，再揭晓。</translation>
    </message>
</context>
<context>
    <name>attn::SweepCurvePlot</name>
    <message>
        <location filename="../../app/views/sweeppanel.cpp" line="+50" />
        <source>temperature τ (log scale)</source>
        <translation>温度 τ（对数刻度）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>entropy (nats), solid</source>
        <translation>熵（奈特），实线</translation>
    </message>
    <message>
        <location line="+2" />
        <source>largest weight, dashed</source>
        <translation>最大权重，虚线</translation>
    </message>
    <message>
        <location line="+102" />
        <source>Query %1 as τ runs</source>
        <translation>查询 %1 随 τ 的变化</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Entropy and largest weight against τ</source>
        <translation>熵与最大权重随 τ 的变化</translation>
    </message>
    <message>
        <location line="+7" />
        <source>uniform: ln %1 = %2</source>
        <extracomment>The entropy of uniform weights over n keys.</extracomment>
        <translation>均匀：ln %1 = %2</translation>
    </message>
    <message>
        <location line="+5" />
        <source>low τ: nearly one-hot</source>
        <translation>低 τ：接近独热</translation>
    </message>
    <message>
        <location line="+2" />
        <source>high τ: nearly uniform</source>
        <translation>高 τ：接近均匀</translation>
    </message>
</context>
<context>
    <name>attn::SweepPanel</name>
    <message>
        <location line="+62" />
        <source>Play the temperature from 0.05 to 20 and back while every map follows; nothing changes for good until you keep a value</source>
        <translation>让温度从 0.05 变到 20 再变回来，所有热图随之变化；只有保留某个值才会真正改变</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Turn the selected query once around the origin in the plane while every map follows</source>
        <translation>让选中的查询在平面中绕原点转一圈，所有热图随之变化</translation>
    </message>
    <message>
        <location line="+1" />
        <source>One frame on, paused</source>
        <translation>前进一帧并暂停</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Step ▸</source>
        <translation>单步 ▸</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Stop and put everything back as it was</source>
        <translation>停止并恢复原状</translation>
    </message>
    <message>
        <location line="+1" />
        <source>■ Stop</source>
        <translation>■ 停止</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Keep the value on show, as one undo step</source>
        <translation>保留当前显示的值，作为一个撤销步骤</translation>
    </message>
    <message>
        <location line="+1" />
        <source>✓ Keep this value</source>
        <translation>✓ 保留此值</translation>
    </message>
    <message>
        <location line="+3" />
        <source>How fast the sweep plays</source>
        <translation>动画播放的速度</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location line="+140" />
        <source>Temperature sweep</source>
        <extracomment>An undo step: the temperature kept from a sweep.</extracomment>
        <translation>温度扫描</translation>
    </message>
    <message>
        <location line="+22" />
        <source>Turn query %1</source>
        <extracomment>An undo step: the query's direction kept from its turn around the origin.</extracomment>
        <translation>旋转查询 %1</translation>
    </message>
    <message>
        <location line="+52" />
        <source>Sweep stopped: everything is as it was</source>
        <translation>扫描已停止：一切恢复原状</translation>
    </message>
    <message>
        <location line="+13" />
        <source>Kept: %1 (one undo step)</source>
        <translation>已保留：%1（一个撤销步骤）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Kept: nothing had changed</source>
        <translation>已保留：没有任何改变</translation>
    </message>
    <message>
        <location line="+33" />
        <source>The sweep stopped for another edit; its value stays as an undo step</source>
        <translation>扫描因另一处编辑而停止；其值保留为一个撤销步骤</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The sweep stopped</source>
        <translation>扫描已停止</translation>
    </message>
    <message>
        <location line="+13" />
        <location line="+1" />
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <location line="-1" />
        <source>▶ Sweep τ</source>
        <translation>▶ 扫描 τ</translation>
    </message>
    <message>
        <location line="+1" />
        <source>▶ Turn the query</source>
        <translation>▶ 旋转查询</translation>
    </message>
    <message>
        <location line="+6" />
        <source>τ = %1. ▶ plays τ from 0.05 to 20 and back (or turns the query) while every map follows; nothing changes for good until you keep a value.</source>
        <translation>τ = %1。▶ 让 τ 从 0.05 变到 20 再变回来（或旋转查询），所有热图随之变化；只有保留某个值才会真正改变。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Preview τ = %1: Stop puts τ = %2 back; Keep makes it one undo step.</source>
        <translation>预览 τ = %1：停止则恢复 τ = %2；保留则成为一个撤销步骤。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Preview: the query turned by %1°. Stop puts it back; Keep makes it one undo step.</source>
        <translation>预览：查询已旋转 %1°。停止则恢复原位；保留则成为一个撤销步骤。</translation>
    </message>
</context>
<context>
    <name>attn::SweepsMode</name>
    <message>
        <location filename="../../app/modes/sweepsmode.cpp" line="+23" />
        <source>&amp;Animate</source>
        <translation>动画(&amp;A)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Top-&amp;k</source>
        <translation>Top-k(&amp;K)</translation>
    </message>
    <message>
        <location line="+3" />
        <source>C&amp;ost</source>
        <translation>代价(&amp;O)</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Animate</source>
        <translation>动画</translation>
    </message>
    <message>
        <location line="+2" />
        <source>▶ Sweep τ</source>
        <translation>▶ 扫描 τ</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Animate the temperature from 0.05 to 20 and back while the maps follow (the Animate tab)</source>
        <translation>让温度从 0.05 变到 20 再变回来，热图随之变化（见“动画”标签页）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>▶ Turn the query</source>
        <translation>▶ 旋转查询</translation>
    </message>
    <message>
        <location line="+7" />
        <source>▶ Turn</source>
        <translation>▶ 旋转</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Turn the selected query once around the origin while the maps follow</source>
        <translation>让选中的查询绕原点转一圈，热图随之变化</translation>
    </message>
    <message>
        <location line="+1" />
        <source>■ Stop</source>
        <translation>■ 停止</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Stop the animation and put everything back as it was</source>
        <translation>停止动画并恢复原状</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Hard against soft: each row's k largest weights only, and the hard k-NN average</source>
        <translation>硬与软对比：每行只保留最大的 k 个权重，以及硬 k-NN 平均</translation>
    </message>
</context>
<context>
    <name>attn::TemperatureBox</name>
    <message>
        <location filename="../../app/views/togglepanel.cpp" line="+121" />
        <source>τ: %1 is outside %2 to %3; τ stays %4</source>
        <translation>τ：%1 超出 %2 到 %3 的范围；τ 仍为 %4</translation>
    </message>
    <message>
        <location line="+2" />
        <source>τ: “%1” is not a number; τ stays %2</source>
        <translation>τ：“%1”不是数字；τ 仍为 %2</translation>
    </message>
</context>
<context>
    <name>attn::TogglePanel</name>
    <message>
        <location line="+346" />
        <source>  softmax₁: below 1, the rest 1 − Σ attends to nothing</source>
        <translation>  softmax₁：小于 1，剩下的 1 − Σ 不关注任何键</translation>
    </message>
    <message>
        <location line="-316" />
        <source>Mask</source>
        <translation>掩码</translation>
    </message>
    <message>
        <location line="+2" />
        <source>&amp;Causal mask</source>
        <translation>因果掩码(&amp;C)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Block every key after the query's own position (Ctrl+Shift+M)</source>
        <translation>屏蔽查询自身位置之后的所有键（Ctrl+Shift+M）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Key padding (tick the padding tokens):</source>
        <translation>键填充掩码（勾选填充词元）：</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Padding keys are blocked in every row</source>
        <translation>填充键在每一行中都被屏蔽</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Ctrl+click a cell of any map to block or open it (a plain click selects its query).</source>
        <extracomment>How a map's cell is blocked by hand: Ctrl and a click; a plain click selects the cell's query row.</extracomment>
        <translation>按住 Ctrl 单击任一热图的单元格可屏蔽或取消屏蔽（直接单击则选中该行的查询）。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>C&amp;lear clicks</source>
        <translation>清除点选(&amp;L)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Open every cell blocked by hand</source>
        <translation>取消所有手动屏蔽的单元格</translation>
    </message>
    <message>
        <location line="+3" />
        <source>Apply:</source>
        <translation>加在：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;before softmax</source>
        <translation>softmax 之前(&amp;B)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Correct: blocked scores become −∞, each row renormalises over the open keys</source>
        <translation>正确做法：被屏蔽的分数变为 −∞，每行在未屏蔽的键上重新归一化</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;after softmax ✗</source>
        <translation>softmax 之后 ✗(&amp;A)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The misconception: softmax first, then zero the blocked weights; rows no longer sum to 1 (Ctrl+Shift+A)</source>
        <translation>常见误区：先做 softmax，再把被屏蔽的权重置零；各行之和不再为 1（Ctrl+Shift+A）</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Softmax&amp;₁</source>
        <translation>Softmax&amp;₁</translation>
    </message>
    <message>
        <location line="+3" />
        <source>e^x / (1 + Σ e^x): rows may attend to nothing</source>
        <translation>e^x / (1 + Σ e^x)：一行可以不关注任何键</translation>
    </message>
    <message>
        <location line="+13" />
        <source>Heads</source>
        <translation>多头</translation>
    </message>
    <message>
        <location line="+14" />
        <source>&amp;Show:</source>
        <translation>显示(&amp;S)：</translation>
    </message>
    <message>
        <location line="+2" />
        <source>The head the maps show (Ctrl+] next, Ctrl+[ previous)</source>
        <translation>热图中显示的头（Ctrl+] 下一个，Ctrl+[ 上一个）</translation>
    </message>
    <message>
        <location line="+18" />
        <source>Positional encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <location line="+3" />
        <source>&amp;None</source>
        <translation>无(&amp;N)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Attention alone cannot see word order: permuting tokens only permutes the results</source>
        <translation>注意力本身看不见语序：打乱词元，结果只会跟着同样重排</translation>
    </message>
    <message>
        <location line="+1" />
        <source>S&amp;inusoidal</source>
        <translation>正弦(&amp;I)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Add sin/cos waves of the position (Attention Is All You Need)</source>
        <translation>加上随位置变化的 sin/cos 波（Attention Is All You Need）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Learned</source>
        <translation>可学习(&amp;L)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Add a fixed table drawn from the seed, standing in for a trained one</source>
        <translation>加上一张由种子生成的固定表，代替训练得到的表</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;RoPE</source>
        <translation>&amp;RoPE</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Rotate each head's queries and keys by position (needs an even d_k)</source>
        <translation>按位置旋转每个头的查询和键（需要 d_k 为偶数）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>S&amp;eed</source>
        <translation>种子(&amp;E)</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Draws the learned table (0 to %1)</source>
        <translation>用于生成可学习位置编码表（0 到 %1）</translation>
    </message>
    <message>
        <location line="+11" />
        <source>Scaling</source>
        <translation>缩放</translation>
    </message>
    <message>
        <location line="+3" />
        <source>÷ √d_&amp;k</source>
        <translation>÷ √d_&amp;k</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Keeps the score variance at 1 whatever d_k is</source>
        <translation>无论 d_k 多大，分数的方差都保持为 1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>÷ 1 (n&amp;one)</source>
        <translation>÷ 1 不缩放(&amp;O)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Scores grow with d_k and softmax saturates to one-hot</source>
        <translation>分数随 d_k 增大，softmax 饱和而趋近 one-hot</translation>
    </message>
    <message>
        <location line="+1" />
        <source>÷ d_k ✗</source>
        <translation>÷ d_k ✗</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The classic mistake: variance 1/d_k, weights too flat</source>
        <translation>典型错误：方差变为 1/d_k，权重分布过平</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Temperature τ</source>
        <translation>温度 τ(&amp;T)</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Low τ: nearly argmax; high τ: nearly uniform (log scale, 0.05 to 10)</source>
        <translation>τ 小：接近 argmax；τ 大：接近均匀分布（对数刻度，0.05 到 10）</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Any τ from %1 to %2</source>
        <translation>τ 可取 %1 到 %2 之间的任意值</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Similarity:</source>
        <translation>相似度：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;dot q·k</source>
        <translation>点积 q·k(&amp;D)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Direction and length both count</source>
        <translation>方向和长度都起作用</translation>
    </message>
    <message>
        <location line="+1" />
        <source>c&amp;osine</source>
        <translation>余弦(&amp;O)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Only the angle counts</source>
        <translation>只看夹角</translation>
    </message>
    <message>
        <location line="+1" />
        <source>−‖q−k‖²</source>
        <translation>−‖q−k‖²</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Euclidean neighbourhood: nearer keys score higher</source>
        <translation>欧氏邻域：离得越近的键分数越高</translation>
    </message>
    <message>
        <location line="+23" />
        <source>Pad %1</source>
        <translation>将 %1 设为填充</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Unpad %1</source>
        <translation>取消 %1 的填充</translation>
    </message>
    <message>
        <location line="+11" />
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location line="+72" />
        <source>Seed: “%1” is not a whole number from 0 to %2; the seed stays %3</source>
        <translation>种子：“%1”不是 0 到 %2 之间的整数；种子保持为 %3</translation>
    </message>
    <message>
        <location line="+11" />
        <source>Seed %1</source>
        <translation>种子 %1</translation>
    </message>
    <message>
        <location line="+57" />
        <source>Row sums of the weights: %1%2</source>
        <translation>权重每行之和：%1%2</translation>
    </message>
    <message>
        <location line="+3" />
        <source>  ✗ below 1: the mask was applied after the softmax</source>
        <translation>  ✗ 小于 1：掩码是在 softmax 之后加的</translation>
    </message>
    <message>
        <location line="-34" />
        <source>head %1 of %2</source>
        <translation>头 %1（共 %2 个）</translation>
    </message>
</context>
<context>
    <name>attn::TopKPanel</name>
    <message>
        <location filename="../../app/views/topkpanel.cpp" line="+22" />
        <source>Keep the &amp;k largest weights of each row:</source>
        <translation>每行保留最大的 k 个权重(&amp;K)：</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Top-k: each row keeps its k largest weights, renormalised to sum 1; hard k-NN averages those k values equally</source>
        <translation>Top-k：每行只保留最大的 k 个权重，并重新归一化使其和为 1；硬 k-NN 对这 k 个值取等权平均</translation>
    </message>
    <message>
        <location line="+70" />
        <source>Top-%1 weights
the rest dropped, renormalised</source>
        <translation>Top-%1 权重
其余舍去，重新归一化</translation>
    </message>
    <message>
        <location line="+10" />
        <source>soft weight kept</source>
        <translation>保留的软权重</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Hard %1-NN output
the %1 nearest values averaged</source>
        <translation>硬 %1-NN 输出
最近的 %1 个值的平均</translation>
    </message>
    <message>
        <location line="+7" />
        <source>Softmax gives every key some weight (soft nearest neighbours); top-%1 keeps only the %1 heaviest of each row, and hard %1-NN averages their values equally. Compare with the Softmax weights and Output maps.</source>
        <translation>Softmax 给每个键都分一些权重（软近邻）；top-%1 每行只保留最重的 %1 个，硬 %1-NN 对它们的值取等权平均。请与 Softmax 权重和输出热图对比。</translation>
    </message>
</context>
<context>
    <name>attn::TrainingLabView</name>
    <message>
        <location filename="../../app/views/traininglab.cpp" line="+251" />
        <source>Dashed: the score of uniform weights, each row 1/(i+1) on its i+1 open keys (on the order of 1/T): a head above it prefers the pattern</source>
        <translation>虚线：均匀权重的分数，每行在 i+1 个可见键上各 1/(i+1)（约为 1/T 量级）：高于它的头偏好这个模式</translation>
    </message>
    <message>
        <location line="-65" />
        <source>Batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <location line="-30" />
        <source>Bilingual grammar</source>
        <translation>双语语法</translation>
    </message>
    <message>
        <location line="-34" />
        <source>Both runs finished: the same weights, batches and seed, only the divisor differs</source>
        <translation>两次训练都已完成：权重、批次和种子相同，只有除数不同</translation>
    </message>
    <message>
        <location line="+153" />
        <source>Cancel the race</source>
        <translation>取消赛跑</translation>
    </message>
    <message>
        <location line="-75" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+290" />
        <source>Cancelled at step %1; the checkpoints so far are kept</source>
        <translation>已在第 %1 步取消；已有的检查点都保留</translation>
    </message>
    <message>
        <location line="+23" />
        <source>Checkpoint %1 of %2: step %3, held-out loss %4</source>
        <translation>检查点 %1 / %2：第 %3 步，留出集损失 %4</translation>
    </message>
    <message>
        <location line="-297" />
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <location line="-62" />
        <source>Copy a list</source>
        <translation>复制列表</translation>
    </message>
    <message>
        <location line="+338" />
        <source>Finished: %1 steps</source>
        <translation>完成：%1 步</translation>
    </message>
    <message>
        <location line="+130" />
        <source>H%1</source>
        <translation>H%1</translation>
    </message>
    <message>
        <location line="-442" />
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <location line="+477" />
        <source>Held-out loss</source>
        <translation>留出集损失</translation>
    </message>
    <message>
        <location line="-505" />
        <source>Induction (repeat a span)</source>
        <translation>归纳（重复一段）</translation>
    </message>
    <message>
        <location line="+469" />
        <source>L%1</source>
        <translation>L%1</translation>
    </message>
    <message>
        <location line="+65" />
        <source>L%1H%2</source>
        <translation>L%1H%2</translation>
    </message>
    <message>
        <location line="-165" />
        <source>L%1H%2: previous token %3, prefix matching %4</source>
        <translation>L%1H%2：前一词元 %3，前缀匹配 %4</translation>
    </message>
    <message>
        <location line="+108" />
        <source>Layer %1, head %2: previous-token score %3, prefix-matching score %4 (held-out sequences)</source>
        <translation>第 %1 层第 %2 个头：前一词元分数 %3，前缀匹配分数 %4（留出序列）</translation>
    </message>
    <message>
        <location line="-450" />
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <location line="-12" />
        <source>MLP after attention</source>
        <translation>注意力之后接 MLP</translation>
    </message>
    <message>
        <location line="-19" />
        <source>Model and task</source>
        <translation>模型与任务</translation>
    </message>
    <message>
        <location line="+74" />
        <source>No checkpoint yet</source>
        <translation>还没有检查点</translation>
    </message>
    <message>
        <location line="+149" />
        <source>Not started: %1</source>
        <translation>未开始：%1</translation>
    </message>
    <message>
        <location line="-143" />
        <source>Open in model mode</source>
        <translation>在模型模式中打开</translation>
    </message>
    <message>
        <location line="-31" />
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <location line="-91" />
        <source>Paused at step %1</source>
        <translation>已暂停在第 %1 步</translation>
    </message>
    <message>
        <location line="+568" />
        <source>Prefix-matching score</source>
        <translation>前缀匹配分数</translation>
    </message>
    <message>
        <location line="-521" />
        <source>Previous token</source>
        <translation>前一词元</translation>
    </message>
    <message>
        <location line="+520" />
        <source>Previous-token score</source>
        <translation>前一词元分数</translation>
    </message>
    <message>
        <location line="-273" />
        <source>Racing: %1 against %2, %3 steps each</source>
        <translation>赛跑中：%1 对 %2，各 %3 步</translation>
    </message>
    <message>
        <location line="-202" />
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <location line="-43" />
        <source>Reverse a list</source>
        <translation>反转列表</translation>
    </message>
    <message>
        <location line="+74" />
        <source>Save model…</source>
        <translation>保存模型…</translation>
    </message>
    <message>
        <location line="-46" />
        <source>Scaling</source>
        <translation>缩放</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <location line="+15" />
        <source>Single step</source>
        <translation>单步</translation>
    </message>
    <message>
        <location line="+75" />
        <source>Start the race</source>
        <translation>开始赛跑</translation>
    </message>
    <message>
        <location line="-78" />
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <location line="+446" />
        <source>Step %1: every head's weights on a held-out probe of %2 tokens (tokens %3–%4 said again from %5)</source>
        <translation>第 %1 步：每个头在一个 %2 个词元的留出探针上的权重（第 %3–%4 个词元从第 %5 个起再说一遍）</translation>
    </message>
    <message>
        <location line="-457" />
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <location line="+123" />
        <source>Take layer %1, head %2 of the trained model (step %3) into the lab</source>
        <translation>把训练好的模型（第 %3 步）的第 %1 层第 %2 个头带进实验室</translation>
    </message>
    <message>
        <location line="-81" />
        <source>Take this checkpoint's head into the lab</source>
        <translation>把这个检查点的头带进实验室</translation>
    </message>
    <message>
        <location line="-49" />
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location line="+127" />
        <source>The head was not taken: %1</source>
        <translation>未能带入这个头：%1</translation>
    </message>
    <message>
        <location line="+11" />
        <source>The model was not opened: %1</source>
        <translation>模型未打开：%1</translation>
    </message>
    <message>
        <location line="-35" />
        <source>The model, data and seed of the settings on the left, trained twice: only the scores' divisor differs.</source>
        <translation>用左侧设置的模型、数据和种子训练两次：只有分数的除数不同。</translation>
    </message>
    <message>
        <location line="+333" />
        <source>The probe's maps cannot be drawn: %1</source>
        <translation>无法画出探针的注意力图：%1</translation>
    </message>
    <message>
        <location line="-496" />
        <source>The race stopped: %1</source>
        <translation>赛跑停止了：%1</translation>
    </message>
    <message>
        <location line="+2" />
        <source>The race was cancelled</source>
        <translation>赛跑已取消</translation>
    </message>
    <message>
        <location line="+204" />
        <source>The race was not started: %1</source>
        <translation>赛跑未开始：%1</translation>
    </message>
    <message>
        <location line="-36" />
        <source>The race</source>
        <translation>赛跑</translation>
    </message>
    <message>
        <location line="+422" />
        <source>The race: held-out loss, the same model, data and seed</source>
        <translation>赛跑：留出集损失，同一个模型、数据和种子</translation>
    </message>
    <message>
        <location line="-523" />
        <source>Tokens T</source>
        <translation>词元数 T</translation>
    </message>
    <message>
        <location line="+301" />
        <source>Training stopped: %1</source>
        <translation>训练停止了：%1</translation>
    </message>
    <message>
        <location line="-223" />
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <location line="-155" />
        <location line="+270" />
        <source>Training…</source>
        <translation>训练中…</translation>
    </message>
    <message>
        <location line="+9" />
        <source>a race is running; cancel it first</source>
        <translation>正在赛跑；请先取消</translation>
    </message>
    <message>
        <location line="-21" />
        <source>a training is running; cancel it first</source>
        <translation>正在训练；请先取消</translation>
    </message>
    <message>
        <location line="+291" />
        <location line="+53" />
        <source>cross-entropy (nats)</source>
        <translation>交叉熵（奈特）</translation>
    </message>
    <message>
        <location line="-531" />
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <location line="+482" />
        <source>loss (%1)</source>
        <translation>损失（%1）</translation>
    </message>
    <message>
        <location line="+14" />
        <source>mean weight</source>
        <translation>平均权重</translation>
    </message>
    <message>
        <location line="-49" />
        <source>prefix %1</source>
        <translation>前缀 %1</translation>
    </message>
    <message>
        <location line="+0" />
        <source>prev %1</source>
        <translation>前一 %1</translation>
    </message>
    <message>
        <location line="-527" />
        <source>step %1 of %2</source>
        <translation>第 %1 / %2 步</translation>
    </message>
    <message>
        <location line="+557" />
        <location line="+18" />
        <location line="+35" />
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location line="-159" />
        <location line="+38" />
        <source>there is no checkpoint yet: start a training</source>
        <translation>还没有检查点：请先开始训练</translation>
    </message>
    <message>
        <location line="+110" />
        <location line="+1" />
        <source>uniform %1</source>
        <translation>均匀 %1</translation>
    </message>
    <message>
        <location line="-429" />
        <source>÷√d_k against ÷1</source>
        <translation>÷√d_k 对 ÷1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>÷√d_k against ÷d_k</source>
        <translation>÷√d_k 对 ÷d_k</translation>
    </message>
</context>
<context>
    <name>attn::TrainingMode</name>
    <message>
        <location filename="../../app/modes/trainingmode.cpp" line="+32" />
        <source>&amp;Training lab</source>
        <translation>训练实验室(&amp;T)</translation>
    </message>
    <message>
        <location line="+127" />
        <source>Save the trained model as a folder</source>
        <translation>把训练好的模型保存为文件夹</translation>
    </message>
    <message>
        <location line="-10" />
        <source>Saved the trained model to %1</source>
        <translation>训练好的模型已保存到 %1</translation>
    </message>
    <message>
        <location line="-3" />
        <source>The model was not saved: %1</source>
        <translation>模型未保存：%1</translation>
    </message>
    <message>
        <location line="-110" />
        <source>Train a small transformer from random weights and watch its heads form</source>
        <translation>从随机权重训练一个小 Transformer，看它的注意力头如何形成</translation>
    </message>
</context>
<context>
    <name>attn::TranslatorMode</name>
    <message>
        <location filename="../../app/modes/translatormode.cpp" line="+22" />
        <source>The encoder-decoder was not opened: %1</source>
        <translation>编码器-解码器未打开：%1</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Opened the encoder-decoder %1</source>
        <translation>已打开编码器-解码器 %1</translation>
    </message>
    <message>
        <location line="-5" />
        <source>Encoder-deco&amp;der (BART)</source>
        <translation>编码器-解码器 (BART)(&amp;D)</translation>
    </message>
    <message>
        <location line="+1" />
        <source>A model that translates: the encoder reads, the decoder writes, cross-attention links them</source>
        <translation>一个会翻译的模型：编码器读，解码器写，交叉注意力把两者连起来</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Open encoder-decoder…</source>
        <translation>打开编码器-解码器…</translation>
    </message>
    <message>
        <location line="+1" />
        <source>A BART folder in the Hugging Face layout: config.json, model.safetensors, vocab.json, merges.txt</source>
        <translation>Hugging Face 格式的 BART 文件夹：config.json、model.safetensors、vocab.json、merges.txt</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Open an encoder-decoder folder</source>
        <translation>打开编码器-解码器文件夹</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The built-in encoder-decoder did not load: %1</source>
        <translation>内置的编码器-解码器未能加载：%1</translation>
    </message>
</context>
<context>
    <name>attn::TranslatorView</name>
    <message>
        <location filename="../../app/views/translatorview.cpp" line="+196" />
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <location line="+1" />
        <source>decoder self-attention</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <location line="+1" />
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Take %1, layer %2, head %3 into the lab</source>
        <extracomment>%1 the kind of attention, %2 the layer, %3 the head.</extracomment>
        <translation>把%1第 %2 层第 %3 个头带进实验室</translation>
    </message>
    <message>
        <location line="+126" />
        <location line="+15" />
        <source>Type a sentence to translate.</source>
        <translation>请输入要翻译的句子。</translation>
    </message>
    <message>
        <location line="+0" />
        <source>Open a model first.</source>
        <translation>请先打开一个模型。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>The translation is finished (the model wrote &lt;/s&gt;): Reset to write it again.</source>
        <translation>翻译已完成（模型写出了 &lt;/s&gt;）：点“重置”重新生成。</translation>
    </message>
    <message>
        <location line="+5" />
        <source>All %1 steps are done: Reset to start again, or raise Steps.</source>
        <translation>%1 步已全部完成：按“重置”重新开始，或增大“步数”。</translation>
    </message>
    <message>
        <location line="+6" />
        <source>The translation is full: %1 writes at most %2 tokens.</source>
        <translation>译文已满：%1 最多写 %2 个词元。</translation>
    </message>
    <message>
        <location line="+16" />
        <source>The model gave no token a probability.</source>
        <translation>模型没有给任何词元概率。</translation>
    </message>
    <message>
        <location line="+42" />
        <source>Encoder self-attention: Q, K and V come from the same sequence, the source's %1 tokens entering encoder layer %2 (%1 × %3), times W_Q, W_K, W_V (%3 × %4 each): Q, K, V are %1 × %4. No mask: every source token reads every other, before and after it.</source>
        <extracomment>%1 source tokens, %2 the layer, %3 d_model, %4 the head's width.</extracomment>
        <translation>编码器自注意力：Q、K、V 来自同一个序列，即进入编码器第 %2 层的源句 %1 个词元（%1 × %3），分别乘以 W_Q、W_K、W_V（各 %3 × %4）：Q、K、V 都是 %1 × %4。没有掩码：每个源词元都读其他所有词元，前面的和后面的都读。</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Decoder self-attention: Q, K and V come from the same sequence, the decoder's %1 tokens so far in decoder layer %2 (%1 × %3), times W_Q, W_K, W_V (%3 × %4 each): Q, K, V are %1 × %4. Causal: a token reads only the tokens written before it, as when it was written.</source>
        <extracomment>%1 decoder tokens, %2 the layer, %3 d_model, %4 the head's width.</extracomment>
        <translation>解码器自注意力：Q、K、V 来自同一个序列，即解码器第 %2 层中到目前为止的 %1 个词元（%1 × %3），分别乘以 W_Q、W_K、W_V（各 %3 × %4）：Q、K、V 都是 %1 × %4。因果：每个词元只读它之前写出的词元，和它被写出时一样。</translation>
    </message>
    <message>
        <location line="+11" />
        <source>Cross-attention: Q comes from the decoder's %1 tokens (after its self-attention in layer %3: %1 × %4 times W_Q: %1 × %5); K and V come from the encoder's output over the source's %2 tokens (%2 × %4 times W_K, W_V: %2 × %5). The weights are %1 × %2: each word written looks up the source words.</source>
        <extracomment>%1 decoder tokens, %2 source tokens, %3 the layer, %4 d_model, %5 the head's width.</extracomment>
        <translation>交叉注意力：Q 来自解码器的 %1 个词元（第 %3 层自注意力之后：%1 × %4 乘以 W_Q 得 %1 × %5）；K 和 V 来自编码器对源句 %2 个词元的输出（%2 × %4 乘以 W_K、W_V 得 %2 × %5）。权重是 %1 × %2：每个写出的词都去查源句的词。</translation>
    </message>
    <message>
        <location line="+41" />
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <location line="+4" />
        <source>L%1</source>
        <translation>第%1层</translation>
    </message>
    <message>
        <location line="+1" />
        <source>H%1</source>
        <translation>头%1</translation>
    </message>
    <message>
        <location line="+20" />
        <source>layer %1, the %2 heads averaged</source>
        <extracomment>%1 the layer, %2 the head or, averaged, how many heads.</extracomment>
        <translation>第 %1 层，%2 个头的平均</translation>
    </message>
    <message>
        <location line="+1" />
        <source>layer %1, head %2</source>
        <translation>第 %1 层，第 %2 个头</translation>
    </message>
    <message>
        <location line="+2" />
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+4" />
        <source>source queries</source>
        <translation>源句查询</translation>
    </message>
    <message>
        <location line="+1" />
        <source>source keys</source>
        <translation>源句键</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Encoder self-attention, %1: weights</source>
        <translation>编码器自注意力，%1：权重</translation>
    </message>
    <message>
        <location line="+5" />
        <location line="+14" />
        <source>decoder: reads → writes</source>
        <translation>解码器：读入 → 写出</translation>
    </message>
    <message>
        <location line="-13" />
        <source>decoder keys</source>
        <translation>解码器键</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Decoder self-attention (causal), %1: weights</source>
        <translation>解码器自注意力（因果），%1：权重</translation>
    </message>
    <message>
        <location line="+13" />
        <source>source (the encoder's keys and values)</source>
        <translation>源句（编码器的键和值）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Cross-attention, %1: the alignment</source>
        <translation>交叉注意力，%1：对齐</translation>
    </message>
    <message>
        <location line="+6" />
        <source>cached</source>
        <translation>缓存</translation>
    </message>
    <message>
        <location line="+0" />
        <source>new</source>
        <translation>新算</translation>
    </message>
    <message>
        <location line="+1" />
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location line="+1" />
        <source>cached: the row's keys and values were kept from earlier steps; new: the only row this step computed</source>
        <translation>缓存：这一行的键和值保留自之前的步骤；新算：这一步唯一计算的一行</translation>
    </message>
    <message>
        <location line="+6" />
        <source>Translation:</source>
        <translation>译文：</translation>
    </message>
    <message>
        <location line="+11" />
        <source>(press Step)</source>
        <translation>（按“单步”）</translation>
    </message>
    <message>
        <location line="+5" />
        <source>The next token's distribution</source>
        <translation>下一个词元的分布</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Each step computes only the new decoder row against the cached keys and values (its own earlier rows' and the encoder's); without the cache the whole triangle and every row against the source are computed again.</source>
        <translation>每一步只计算解码器新的一行，与缓存的键和值（它自己之前各行的和编码器的）相乘；没有缓存时，整个三角形和每一行对源句的分数都要重算。</translation>
    </message>
    <message>
        <location line="+14" />
        <source>Step 1 writes %1: the model's config forces it first (forced_bos_token_id)</source>
        <translation>第 1 步写出 %1：模型配置规定第一个必须是它（forced_bos_token_id）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Step %1's distribution: softmax → after temperature, top-k, top-p; u = %2 chose %3</source>
        <translation>第 %1 步的分布：softmax → 经温度、top-k、top-p 之后；u = %2 选中了 %3</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Step %1's distribution: softmax → greedy (the most likely, %2)</source>
        <translation>第 %1 步的分布：softmax → 贪心（取最可能的 %2）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Step %1: the decoder read %2 tokens, %3 from the cache; a head computed %4 score entries (the new row against the decoder's keys and against the %5 source keys); without the cache, %6. So far: %7 against %8.</source>
        <extracomment>%1 the step, %2 decoder tokens read, %3 of them from the cache, %4 entries computed, %5 source tokens, %6 without the cache, %7 and %8 the totals.</extracomment>
        <translation>第 %1 步：解码器读了 %2 个词元，其中 %3 个来自缓存；一个头计算了 %4 个分数（新的一行对解码器的键和对源句的 %5 个键）；没有缓存则是 %6。累计：%7 对 %8。</translation>
    </message>
    <message>
        <location line="+15" />
        <source>&amp;Source:</source>
        <translation>源句(&amp;S)：</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Take this head into the lab</source>
        <translation>把这个头带进实验室</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The chosen head's Q, K and V as a lab scenario; a cross-attention head keeps its two sequences (queries from the decoder, keys and values from the encoder)</source>
        <translation>把所选头的 Q、K、V 作为实验室场景；交叉注意力头保留它的两个序列（查询来自解码器，键和值来自编码器）</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Encoder self-attention (both ways)</source>
        <translation>编码器自注意力（双向）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Decoder self-attention (causal)</source>
        <translation>解码器自注意力（因果）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Cross-attention (Q from the decoder, K and V from the encoder)</source>
        <translation>交叉注意力（Q 来自解码器，K 和 V 来自编码器）</translation>
    </message>
    <message>
        <location line="+1" />
        <source>Average the layer's heads</source>
        <translation>该层各头取平均</translation>
    </message>
    <message>
        <location line="+1" />
        <source>The mean of the chosen layer's heads: for the cross-attention, the alignment of the words written with the source. Click a head to see it alone.</source>
        <translation>所选层各头的平均：对交叉注意力来说，就是写出的词与源句的对齐。点击某个头可单独查看。</translation>
    </message>
    <message>
        <location line="+2" />
        <source>An encoder-decoder (BART) translates: the encoder reads the source both ways, the decoder writes the translation token by token, reading what it wrote (causal) and the source (cross-attention). Type Chinese or English.</source>
        <translation>编码器-解码器（BART）做翻译：编码器双向读源句，解码器逐个词元写出译文，既读自己已写的部分（因果），也读源句（交叉注意力）。可输入中文或英文。</translation>
    </message>
    <message>
        <location line="+4" />
        <source>Encoder-decoder: %1 (encoder %2 layers × %3 heads, decoder %4 layers × %5 heads, d_model %6, %7 parameters)</source>
        <translation>编码器-解码器：%1（编码器 %2 层 × %3 头，解码器 %4 层 × %5 头，d_model %6，%7 个参数）</translation>
    </message>
    <message>
        <location line="+9" />
        <source>Press Step: the next token's distribution appears here.</source>
        <translation>按“单步”：下一个词元的分布会显示在这里。</translation>
    </message>
</context>
<context>
    <name>attn::WindowExport</name>
    <message>
        <location filename="../../app/gui/windowexport.cpp" line="+73" />
        <source>no file name was given</source>
        <translation>未指定文件名</translation>
    </message>
    <message>
        <location line="+2" />
        <source>nothing is pinned as A to compare with (Compare ▸ Pin as A)</source>
        <translation>没有固定为 A 的状态可供对比（对比 ▸ 固定为 A）</translation>
    </message>
    <message>
        <location line="+8" />
        <location line="+88" />
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <location line="-73" />
        <source>The figure is on the clipboard</source>
        <translation>图片已复制到剪贴板</translation>
    </message>
    <message>
        <location line="+9" />
        <source>&amp;Export this figure…</source>
        <translation>导出此图(&amp;E)…</translation>
    </message>
    <message>
        <location line="+1" />
        <source>&amp;Copy as image</source>
        <translation>复制为图片(&amp;C)</translation>
    </message>
    <message>
        <location line="+2" />
        <source>Export the &amp;dashboard…</source>
        <translation>导出总览图(&amp;D)…</translation>
    </message>
    <message>
        <location line="+19" />
        <location line="+38" />
        <location line="+23" />
        <source>%1 was not written: %2</source>
        <translation>未能写入 %1：%2</translation>
    </message>
    <message>
        <location line="-51" />
        <source>figure</source>
        <extracomment>The start of an exported file's name; use letters a file name may hold.</extracomment>
        <translation>图片</translation>
    </message>
    <message>
        <location line="+5" />
        <source>Folder for the CSV files</source>
        <translation>存放 CSV 文件的文件夹</translation>
    </message>
    <message>
        <location line="+5" />
        <source>The numbers were not all written: %1</source>
        <translation>数值未能全部写入：%1</translation>
    </message>
    <message numerus="yes">
        <location line="+4" />
        <source>Wrote %n CSV file(s) to %1</source>
        <translation>
            <numerusform>已将 %n 个 CSV 文件写入 %1</numerusform>
        </translation>
    </message>
    <message>
        <location line="+5" />
        <source>Export the trace</source>
        <translation>导出计算过程</translation>
    </message>
    <message>
        <location line="+2" />
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <location line="+24" />
        <source>Print the quiz handout</source>
        <translation>打印测验讲义</translation>
    </message>
    <message>
        <location line="+2" />
        <source>PDF files (*.pdf)</source>
        <translation>PDF 文件 (*.pdf)</translation>
    </message>
    <message>
        <location line="+8" />
        <source>Wrote the quiz handout to %1</source>
        <translation>测验讲义已写入 %1</translation>
    </message>
</context>
</TS>